package dev.egressproxies.kvm.common.ssh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.local.UnixSocketRelay;
import dev.egressproxies.kvm.common.ssh.TestKeys.Client;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Public-key authentication against a real sshd, and how each kind of bad key file fails. */
@Timeout(60)
class SshTunnelAuthenticationTest {
    @RegisterExtension
    static final OpenSshServer SSHD = new OpenSshServer();

    @RegisterExtension
    static final EchoSocketExtension ECHO = new EchoSocketExtension();

    @TempDir
    Path folder;

    private static SshTunnelSettings settings(Path key) {
        return SSHD.settings(key, ECHO.socketPath());
    }

    @ParameterizedTest
    @EnumSource(value = Client.class, names = {"UNAUTHORIZED", "ENCRYPTED"}, mode = EnumSource.Mode.EXCLUDE)
    void everyKeyTypeAndFormatConnects(Client key) throws Exception {
        byte[] sent = ("hello through " + key).getBytes(StandardCharsets.UTF_8);
        try (UnixSocketRelay tunnel = SshTunnel.open(settings(TestKeys.get().client(key)), Dials.dial());
                SocketChannel local = SocketChannel.open(UnixDomainSocketAddress.of(tunnel.socketPath()))) {
            assertThat(SshTunnelForwardingTest.roundTrip(local, sent)).isEqualTo(sent);
        }
    }

    @Test
    void aKeyTheHostDoesNotKnowIsRejectedPermanently() {
        Path key = TestKeys.get().client(Client.UNAUTHORIZED);
        ProviderException failure = catchThrowableOfType(ProviderException.class,
                () -> SshTunnel.open(settings(key), Dials.dial()));
        assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(failure.getMessage()).contains("did not accept any key offered", key.toString(), "user " + SSHD.user(),
                "authorized_keys");
    }

    @Test
    void aMissingKeyFileIsTransientAndHealsWhenTheFileAppears() throws Exception {
        Path key = folder.resolve("mounted-later");
        ProviderException failure = catchThrowableOfType(ProviderException.class,
                () -> SshTunnel.open(settings(key), Dials.dial()));
        assertThat(failure.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(failure.getMessage()).contains(key.toString(), "does not exist");

        Files.copy(TestKeys.get().client(Client.ED25519_OPENSSH), key);
        try (UnixSocketRelay tunnel = SshTunnel.open(settings(key), Dials.dial())) {
            assertThat(tunnel.isOpen()).isTrue();
        }
    }

    @Test
    void anUnparseableKeyFileIsPermanent() throws Exception {
        Path key = Files.writeString(folder.resolve("garbage"), "-----BEGIN OPENSSH PRIVATE KEY-----\nnot a key\n");
        ProviderException failure = catchThrowableOfType(ProviderException.class,
                () -> SshTunnel.open(settings(key), Dials.dial()));
        assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(failure.getMessage()).contains(key.toString(), "cannot be parsed");
    }

    @Test
    void aKeyWithAPassphraseIsPermanentAndSaysSo() {
        Path key = TestKeys.get().client(Client.ENCRYPTED);
        ProviderException failure = catchThrowableOfType(ProviderException.class,
                () -> SshTunnel.open(settings(key), Dials.dial()));
        assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(failure.getMessage()).contains("protected by a passphrase", "passphraseFile", "ssh-add");
    }
}

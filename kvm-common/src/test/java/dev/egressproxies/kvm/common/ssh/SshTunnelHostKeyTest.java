package dev.egressproxies.kvm.common.ssh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.local.UnixSocketRelay;
import dev.egressproxies.kvm.common.ssh.TestKeys.Client;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The host key check against a real sshd that presents two host keys (ed25519 and ECDSA): refusals
 * happen before authentication, and say what to fix.
 */
@Timeout(60)
class SshTunnelHostKeyTest {
    @RegisterExtension
    static final OpenSshServer SSHD = new OpenSshServer().withHostKey(TestKeys.get().hostEcdsa());

    @RegisterExtension
    static final EchoSocketExtension ECHO = new EchoSocketExtension();

    @TempDir
    Path folder;

    private static SshTunnelSettings settings(HostKeyPolicy policy) {
        return SshTunnelSettings.of(OpenSshServer.HOST, SSHD.port(), SSHD.user(),
                TestKeys.get().client(Client.ED25519_OPENSSH), policy, ECHO.socketPath());
    }

    private String hostName() {
        return "[" + OpenSshServer.HOST + "]:" + SSHD.port();
    }

    @Test
    void aRecordedKeyIsAccepted() throws Exception {
        try (UnixSocketRelay tunnel = SshTunnel.open(settings(HostKeyPolicy.knownHosts(SSHD.knownHosts())), Dials.dial())) {
            assertThat(tunnel.isOpen()).isTrue();
        }
    }

    @Test
    void eitherOfTheHostsKeysIsEnoughWhenItIsTheOnlyOneRecorded() throws Exception {
        // sshd presents the key of the first algorithm in the client's list it has; the client
        // must therefore put the recorded key's algorithms first, as OpenSSH's client does.
        for (Path hostKey : new Path[] {TestKeys.get().hostEd25519(), TestKeys.get().hostEcdsa()}) {
            Path knownHosts = SSHD.knownHostsWith("only-" + hostKey.getFileName(), SSHD.knownHostsLine(hostKey));
            try (UnixSocketRelay tunnel = SshTunnel.open(settings(HostKeyPolicy.knownHosts(knownHosts)), Dials.dial())) {
                assertThat(tunnel.isOpen()).as(hostKey.getFileName().toString()).isTrue();
            }
        }
    }

    @Test
    void aDifferentKeyIsRefusedBeforeAuthentication() throws Exception {
        int acceptedBefore = acceptedLogins();
        int forwardedBefore = ECHO.acceptedConnections();
        ProviderException failure = catchThrowableOfType(ProviderException.class,
                () -> SshTunnel.open(settings(HostKeyPolicy.knownHosts(SSHD.wrongKnownHosts())), Dials.dial()));
        assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(failure.getMessage()).contains(OpenSshServer.HOST + ":" + SSHD.port(), "records",
                SSHD.wrongKnownHosts().toString(), "ssh-keygen -R " + hostName(), "line 1");
        assertThat(acceptedLogins()).isEqualTo(acceptedBefore);
        assertThat(ECHO.acceptedConnections()).isEqualTo(forwardedBefore);
    }

    @Test
    void aHostMissingFromKnownHostsIsRefused() throws Exception {
        Path otherPort = SSHD.knownHostsWith("other-port",
                "[" + OpenSshServer.HOST + "]:" + (SSHD.port() + 1) + " "
                        + TestKeys.publicKeyLine(TestKeys.get().hostEd25519()),
                OpenSshServer.HOST + " " + TestKeys.publicKeyLine(TestKeys.get().hostEd25519()));
        ProviderException failure = catchThrowableOfType(ProviderException.class,
                () -> SshTunnel.open(settings(HostKeyPolicy.knownHosts(otherPort)), Dials.dial()));
        assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(failure.getMessage()).contains(otherPort.toString(), "has no entry in known_hosts",
                "ssh-keyscan -p " + SSHD.port() + " " + OpenSshServer.HOST);
    }

    @Test
    void aRevokedKeyIsRefused() throws Exception {
        Path revoked = SSHD.knownHostsWith("revoked",
                "@revoked " + SSHD.knownHostsLine(TestKeys.get().hostEd25519()).trim(),
                SSHD.knownHostsLine(TestKeys.get().hostEcdsa()).trim());
        // Pin the revoked key's algorithm: with ECDSA recorded too, sshd would otherwise present that.
        Path onlyRevoked = SSHD.knownHostsWith("only-revoked",
                "@revoked " + SSHD.knownHostsLine(TestKeys.get().hostEd25519()).trim(),
                SSHD.knownHostsLine(TestKeys.get().otherHostEd25519()).trim());
        ProviderException failure = catchThrowableOfType(ProviderException.class,
                () -> SshTunnel.open(settings(HostKeyPolicy.knownHosts(onlyRevoked)), Dials.dial()));
        assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(failure.getMessage()).contains("line 1 marks @revoked");
        try (UnixSocketRelay tunnel = SshTunnel.open(settings(HostKeyPolicy.knownHosts(revoked)), Dials.dial())) {
            assertThat(tunnel.isOpen()).as("the ECDSA key is still fine").isTrue();
        }
    }

    @Test
    void aMissingKnownHostsFileIsTransient() {
        Path missing = folder.resolve("known_hosts");
        ProviderException failure = catchThrowableOfType(ProviderException.class,
                () -> SshTunnel.open(settings(HostKeyPolicy.knownHosts(missing)), Dials.dial()));
        assertThat(failure.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(failure.getMessage()).contains(missing.toString(), "does not exist (yet)");
    }

    @Test
    void theInsecureOptInAcceptsAnyKey() throws Exception {
        try (UnixSocketRelay tunnel = SshTunnel.open(settings(HostKeyPolicy.insecureIgnoreHostKey()), Dials.dial())) {
            assertThat(tunnel.isOpen()).isTrue();
        }
    }

    private static int acceptedLogins() throws IOException {
        return SSHD.log().split("Accepted publickey", -1).length - 1;
    }
}

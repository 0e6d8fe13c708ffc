package dev.egressproxies.kvm.common.ssh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.local.UnixSocketRelay;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * ssh_config's KexAlgorithms, Ciphers and MACs against real sshds: what the file narrows is what
 * the connection uses, what it adds reaches a host that needs it, and a host with no algorithm in
 * common is a PERMANENT failure naming the side to change.
 */
@Timeout(120)
class SshTunnelAlgorithmsTest {
    @RegisterExtension
    static final OpenSshServer SSHD = new OpenSshServer();

    /** A host that still speaks only a key exchange OpenSSH and this client no longer offer by default. */
    @RegisterExtension
    static final OpenSshServer LEGACY = new OpenSshServer().withOption("KexAlgorithms", "diffie-hellman-group14-sha1");

    @RegisterExtension
    static final EchoSocketExtension ECHO = new EchoSocketExtension();

    private static String route(OpenSshServer server, SshAlgorithms algorithms) throws Exception {
        TestKeys.Client key = TestKeys.Client.ED25519_OPENSSH;
        server.authorize(TestKeys.get().client(key));
        SshTunnelSettings settings = server.settings(TestKeys.get().client(key), ECHO.socketPath());
        SshHop target = settings.target();
        SshTunnelSettings narrowed = new SshTunnelSettings(new SshHop(target.host(), target.port(), target.user(),
                target.keyFiles(), target.hostKeyPolicy(), target.defaultKeyFiles(), algorithms), settings.jumps(),
                null, null, settings.remoteSocketPath(), settings.handshakeTimeout(), settings.keepaliveInterval(),
                settings.keepaliveMaxMissed());
        try (UnixSocketRelay tunnel = SshTunnel.open(narrowed, Dials.dial())) {
            return tunnel.route();
        }
    }

    @Test
    void theConnectionUsesWhatSshConfigNarrowsTheAlgorithmsTo() throws Exception {
        assertThat(route(SSHD, SshAlgorithms.DEFAULT)).doesNotContain("from ssh_config")
                .contains("cipher aes128-gcm@openssh.com");

        String route = route(SSHD, SshAlgorithms.fromOpenSshConfig("ecdh-sha2-nistp384", "aes256-ctr",
                "hmac-sha2-512-etm@openssh.com"));

        assertThat(route).contains("(key exchange ecdh-sha2-nistp384, cipher aes256-ctr)")
                .contains("; from ssh_config KexAlgorithms ecdh-sha2-nistp384; Ciphers aes256-ctr;"
                        + " MACs hmac-sha2-512-etm@openssh.com");
    }

    @Test
    void aKeyExchangeAddedWithPlusReachesAHostThatNeedsIt() throws Exception {
        assertThat(route(LEGACY, SshAlgorithms.fromOpenSshConfig("+diffie-hellman-group14-sha1", null, null)))
                .contains("(key exchange diffie-hellman-group14-sha1, cipher ");
    }

    @Test
    void noAlgorithmInCommonIsPermanentAndSaysWhichSideToChange() {
        ProviderException defaults = catchThrowableOfType(ProviderException.class,
                () -> route(LEGACY, SshAlgorithms.DEFAULT));
        assertThat(defaults.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(defaults.getMessage()).contains("sshd at ").contains("have no algorithm in common")
                .contains("diffie-hellman-group14-sha1")
                .contains("allow one of this client's algorithms in the host's sshd_config");

        ProviderException narrowed = catchThrowableOfType(ProviderException.class,
                () -> route(SSHD, SshAlgorithms.fromOpenSshConfig("diffie-hellman-group1-sha1", null, null)));
        assertThat(narrowed.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(narrowed.getMessage()).contains("ssh_config sets KexAlgorithms diffie-hellman-group1-sha1; change that");
    }
}

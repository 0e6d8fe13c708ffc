package dev.egressproxies.kvm.common.ssh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.local.UnixSocketRelay;
import java.nio.file.Path;
import java.util.Map;
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

    /** A host with an Ed25519 and an ECDSA host key. */
    @RegisterExtension
    static final OpenSshServer TWO_KEYS = new OpenSshServer().withHostKey(TestKeys.get().hostEcdsa());

    @RegisterExtension
    static final EchoSocketExtension ECHO = new EchoSocketExtension();

    private static String route(OpenSshServer server, SshAlgorithms algorithms) throws Exception {
        return route(server, TestKeys.Client.ED25519_OPENSSH, server.knownHosts(), algorithms);
    }

    private static String route(OpenSshServer server, TestKeys.Client key, Path knownHosts, SshAlgorithms algorithms)
            throws Exception {
        server.authorize(TestKeys.get().client(key));
        SshTunnelSettings settings = server.settings(TestKeys.get().client(key), ECHO.socketPath());
        SshHop target = settings.target();
        SshTunnelSettings narrowed = new SshTunnelSettings(new SshHop(target.host(), target.port(), target.user(),
                target.keyFiles(), HostKeyPolicy.knownHosts(knownHosts), target.defaultKeyFiles(), algorithms),
                settings.jumps(),
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

        String route = route(SSHD, SshAlgorithms.fromOpenSshConfig(Map.of("KexAlgorithms",
                "ecdh-sha2-nistp384", "Ciphers", "aes256-ctr", "MACs", "hmac-sha2-512-etm@openssh.com")::get));

        assertThat(route).contains("(key exchange ecdh-sha2-nistp384, host key ssh-ed25519, cipher aes256-ctr)")
                .contains("; from ssh_config KexAlgorithms ecdh-sha2-nistp384; Ciphers aes256-ctr;"
                        + " MACs hmac-sha2-512-etm@openssh.com");
    }

    @Test
    void hostKeyAlgorithmsChooseTheHostKeyAndLeaveUserKeysOfOtherTypesAbleToLogIn() throws Exception {
        Path bothKeys = TWO_KEYS.knownHostsWith("both_known_hosts",
                TWO_KEYS.knownHostsLine(TestKeys.get().hostEd25519()).strip(),
                TWO_KEYS.knownHostsLine(TestKeys.get().hostEcdsa()).strip());
        SshAlgorithms ecdsaHostKey = SshAlgorithms.fromOpenSshConfig(Map.of("HostKeyAlgorithms",
                "ecdsa-sha2-nistp256")::get);

        assertThat(route(TWO_KEYS, TestKeys.Client.ED25519_OPENSSH, bothKeys, ecdsaHostKey))
                .contains("host key ecdsa-sha2-nistp256,");
        // The session's algorithm list holds no RSA now; login signs from a list of its own.
        assertThat(route(TWO_KEYS, TestKeys.Client.RSA_OPENSSH, bothKeys, ecdsaHostKey))
                .contains("logged in with ssh-rsa").contains("host key ecdsa-sha2-nistp256,");
    }

    @Test
    void pubkeyAcceptedAlgorithmsDecideWhichKeysAreOffered() throws Exception {
        assertThat(route(SSHD, TestKeys.Client.RSA_OPENSSH, SSHD.knownHosts(), SshAlgorithms.fromOpenSshConfig(
                Map.of("PubkeyAcceptedAlgorithms", "rsa-sha2-512,ssh-ed25519")::get))).contains("logged in with ssh-rsa");

        ProviderException refused = catchThrowableOfType(ProviderException.class, () -> route(SSHD,
                TestKeys.Client.RSA_OPENSSH, SSHD.knownHosts(), SshAlgorithms.fromOpenSshConfig(
                        Map.of("PubkeyAcceptedAlgorithms", "ssh-ed25519")::get)));
        assertThat(refused.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(refused.getMessage()).contains("did not accept any key offered")
                .contains("ssh_config's PubkeyAcceptedAlgorithms lets only keys of ssh-ed25519 be offered");
    }

    @Test
    void aKeyExchangeAddedWithPlusReachesAHostThatNeedsIt() throws Exception {
        assertThat(route(LEGACY, SshAlgorithms.fromOpenSshConfig(Map.of("KexAlgorithms", "+diffie-hellman-group14-sha1")::get)))
                .contains("(key exchange diffie-hellman-group14-sha1, host key ssh-ed25519, cipher ");
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
                () -> route(SSHD, SshAlgorithms.fromOpenSshConfig(Map.of("KexAlgorithms", "diffie-hellman-group1-sha1")::get)));
        assertThat(narrowed.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(narrowed.getMessage()).contains("ssh_config sets KexAlgorithms diffie-hellman-group1-sha1; change that");
    }
}

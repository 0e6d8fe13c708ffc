package dev.egressproxies.kvm.common.ssh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.local.UnixSocketRelay;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * OpenSSH's default identities against a real sshd: tried in OpenSSH's order when no key file is
 * named, passed over when one cannot be used, and the key that logged in named in the route that
 * check prints.
 */
@Timeout(120)
class SshTunnelDefaultIdentitiesTest {
    @RegisterExtension
    static final OpenSshServer SSHD = new OpenSshServer();

    @RegisterExtension
    static final EchoSocketExtension ECHO = new EchoSocketExtension();

    @TempDir
    Path home;

    @Test
    void theDefaultsAreTheFilesThatExistInOpenSshsOrder() throws Exception {
        assertThat(DefaultIdentities.candidates(home)).containsExactly(home.resolve(".ssh/id_rsa"),
                home.resolve(".ssh/id_ecdsa"), home.resolve(".ssh/id_ed25519"));
        assertThat(DefaultIdentities.existing(home)).isEmpty();
        keygen("id_ed25519", "ed25519", "");
        keygen("id_rsa", "rsa", "");
        assertThat(DefaultIdentities.existing(home)).containsExactly(home.resolve(".ssh/id_rsa"),
                home.resolve(".ssh/id_ed25519"));
    }

    @Test
    void aDefaultKeyLogsInAndTheRouteNamesIt() throws Exception {
        keygen("id_rsa", "rsa", "");            // offered first, and refused: not authorized
        Path ed25519 = keygen("id_ed25519", "ed25519", "");
        SSHD.authorize(ed25519);

        String route = route(withDefaults(DefaultIdentities.existing(home)));

        assertThat(route).contains("keys OpenSSH's default " + home.resolve(".ssh/id_rsa") + ", " + ed25519)
                .containsPattern("logged in with ssh-ed25519 SHA256:\\S+ from " + ed25519);
    }

    @Test
    void aNamedKeyFileIsNamedInTheRouteToo() throws Exception {
        Path ecdsa = keygen("id_ecdsa", "ecdsa", "");
        SSHD.authorize(ecdsa);
        assertThat(route(SSHD.settings(ecdsa, ECHO.socketPath())))
                .containsPattern("logged in with ecdsa-sha2-nistp256 SHA256:\\S+ from " + ecdsa);
    }

    @Test
    void anEncryptedOrBrokenDefaultKeyIsPassedOver() throws Exception {
        keygen("id_ecdsa", "ecdsa", "correct horse");
        Path ed25519 = keygen("id_ed25519", "ed25519", "");
        Files.writeString(home.resolve(".ssh/id_rsa"), "not a key\n");
        SSHD.authorize(ed25519);

        assertThat(route(withDefaults(DefaultIdentities.existing(home)))).contains("logged in with ssh-ed25519");
    }

    @Test
    void withNoUsableDefaultKeyTheFailureSaysWhyEachWasPassedOver() throws Exception {
        Path ecdsa = keygen("id_ecdsa", "ecdsa", "correct horse");
        Files.writeString(home.resolve(".ssh/id_rsa"), "not a key\n");

        ProviderException failure = catchThrowableOfType(ProviderException.class,
                () -> route(withDefaults(DefaultIdentities.existing(home))));

        assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(failure.getMessage()).contains("there is no key to log in to")
                .contains("OpenSSH's default keys were passed over")
                .contains(ecdsa + " (protected by a passphrase")
                .contains(home.resolve(".ssh/id_rsa") + " (SSH private key file");
    }

    private SshTunnelSettings withDefaults(List<Path> defaults) {
        SshTunnelSettings settings = SSHD.settings(home.resolve("unused"), ECHO.socketPath());
        SshHop target = settings.target();
        return new SshTunnelSettings(new SshHop(target.host(), target.port(), target.user(), List.of(),
                target.hostKeyPolicy(), defaults), List.of(), null, null, settings.remoteSocketPath(),
                settings.handshakeTimeout(), settings.keepaliveInterval(), settings.keepaliveMaxMissed());
    }

    private static String route(SshTunnelSettings settings) {
        try (UnixSocketRelay tunnel = SshTunnel.open(settings, Dials.dial())) {
            return tunnel.route();
        }
    }

    private Path keygen(String name, String type, String passphrase) throws Exception {
        Path file = Files.createDirectories(home.resolve(".ssh")).resolve(name);
        Command.run("openssh-client", "ssh-keygen", "-q", "-t", type, "-N", passphrase, "-C", name, "-f",
                file.toString());
        return file;
    }
}

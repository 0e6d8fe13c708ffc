package dev.egressproxies.kvm.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.Operation;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.ssh.SshTunnelSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A config that names no key relies on OpenSSH's default identities in the home OpenSSH reads (the
 * JDK's {@code user.home}, set to a temporary folder here).
 */
class SshAccessDefaultIdentitiesTest {
    private static final Call DIAL = new Call("kvm-a", Operation.LIST_MANAGED, "", Deadline.none());

    @TempDir
    Path home;
    private String realHome;

    @BeforeEach
    void useTemporaryHome() {
        assumeTrue(System.getenv("SSH_AUTH_SOCK") == null, "an agent in the environment names keys itself");
        realHome = System.getProperty("user.home");
        System.setProperty("user.home", home.toString());
    }

    @AfterEach
    void restoreHome() {
        if (realHome != null) {
            System.setProperty("user.home", realHome);
        }
    }

    @Test
    void withoutAnyKeyValidationNamesTheDefaultPlacesToo() {
        assertThatThrownBy(() -> access()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sshKeyFile: required unless ssh-agent, ssh_config or OpenSSH's default keys")
                .hasMessageContaining(home.resolve(".ssh/id_ed25519").toString());
    }

    @Test
    void aDefaultKeyIsEnoughAndIsWhatTheTunnelOffers() throws Exception {
        Path key = Files.createDirectories(home.resolve(".ssh")).resolve("id_ed25519");
        Files.writeString(key, "read at each dial\n");

        SshTunnelSettings settings = access().tunnelSettings(new HostSettings("host-1", "10.0.0.5", null, null, null,
                null, "br0", null, null, null, null, null), DIAL);

        assertThat(settings.target().keyFiles()).isEmpty();
        assertThat(settings.target().defaultKeyFiles()).containsExactly(key);
        assertThat(settings.effectiveValues()).contains("keys OpenSSH's default " + key);
    }

    @Test
    void aNamedKeyLeavesTheDefaultsOut() throws Exception {
        Files.writeString(Files.createDirectories(home.resolve(".ssh")).resolve("id_rsa"), "unused\n");
        SshAccess access = new SshAccess(Path.of("/etc/egress/id"), null, true, null, null);
        SshTunnelSettings settings = access.tunnelSettings(new HostSettings("host-1", "10.0.0.5", null, null, null,
                null, "br0", null, null, null, null, null), DIAL);
        assertThat(settings.target().keyFiles()).isEqualTo(List.of(Path.of("/etc/egress/id")));
        assertThat(settings.target().defaultKeyFiles()).isEmpty();
    }

    private static SshAccess access() {
        return new SshAccess(null, null, true, null, null);
    }
}

package dev.egressproxies.kvm.common.ssh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Settings validation and defaults. */
class SshTunnelSettingsTest {
    private static final Path KEY = Path.of("/etc/egress/id_ed25519");
    private static final HostKeyPolicy KNOWN_HOSTS = HostKeyPolicy.knownHosts(Path.of("/etc/egress/known_hosts"));

    private static SshTunnelSettings valid() {
        return SshTunnelSettings.of("kvm1.example", 22, "egress", KEY, KNOWN_HOSTS, "/var/run/libvirt/libvirt-sock");
    }

    @Test
    void defaultsFollowTheReferenceImplementation() {
        SshTunnelSettings settings = valid();
        assertThat(settings.handshakeTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(settings.keepaliveInterval()).isEqualTo(Duration.ofSeconds(15));
        assertThat(settings.keepaliveMaxMissed()).isEqualTo(2);
        assertThat(settings.destination()).isEqualTo("egress@kvm1.example:22");
    }

    @Test
    void withersChangeOnlyTheirField() {
        SshTunnelSettings changed = valid().withHandshakeTimeout(Duration.ofSeconds(5))
                .withKeepalive(Duration.ofSeconds(1), 4)
                .withRemoteSocketPath("/run/other.sock");
        assertThat(changed.handshakeTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(changed.keepaliveInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(changed.keepaliveMaxMissed()).isEqualTo(4);
        assertThat(changed.remoteSocketPath()).isEqualTo("/run/other.sock");
        assertThat(changed.target().host()).isEqualTo("kvm1.example");
        assertThat(changed.target().hostKeyPolicy()).isEqualTo(KNOWN_HOSTS);
    }

    @Test
    void impossibleValuesAreRefusedWithTheFieldName() {
        assertThatThrownBy(() -> SshTunnelSettings.of(" ", 22, "egress", KEY, KNOWN_HOSTS, "/s"))
                .hasMessageContaining("host");
        assertThatThrownBy(() -> SshTunnelSettings.of("h", 0, "egress", KEY, KNOWN_HOSTS, "/s"))
                .hasMessageContaining("port");
        assertThatThrownBy(() -> SshTunnelSettings.of("h", 22, "", KEY, KNOWN_HOSTS, "/s"))
                .hasMessageContaining("user");
        assertThatThrownBy(() -> SshTunnelSettings.of("h", 22, "u", KEY, KNOWN_HOSTS, "relative.sock"))
                .hasMessageContaining("absolute");
        assertThatThrownBy(() -> valid().withHandshakeTimeout(Duration.ZERO)).hasMessageContaining("handshakeTimeout");
        assertThatThrownBy(() -> valid().withKeepalive(Duration.ofSeconds(1), 0))
                .hasMessageContaining("keepaliveMaxMissed");
        assertThatThrownBy(() -> HostKeyPolicy.knownHosts(null)).hasMessageContaining("known_hosts");
    }
}

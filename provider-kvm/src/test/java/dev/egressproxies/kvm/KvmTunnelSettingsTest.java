package dev.egressproxies.kvm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.Operation;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.ssh.HostKeyPolicy;
import dev.egressproxies.kvm.common.ssh.SshHop;
import dev.egressproxies.kvm.common.ssh.SshTunnelSettings;
import dev.egressproxies.kvm.config.KvmConfig;
import dev.egressproxies.kvm.config.KvmHost;
import dev.egressproxies.kvm.config.KvmImage;
import dev.egressproxies.kvm.config.MachineType;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The SSH tunnel settings the production wiring derives from an entry's configuration. */
class KvmTunnelSettingsTest {
    private static final KvmHost HOST = new KvmHost("host-1", "10.0.0.5", 2222, "egress", "/run/libvirt/sock", null,
            "br0", null, null, null, null, null, null);
    private static final Call DIAL = new Call("kvm-a", Operation.LIST_MANAGED, "", Deadline.none());

    @Test
    void aHostsTunnelUsesItsAddressUserSocketAndTheEntrysKeysAndTimeouts() {
        KvmConfig config = config(Path.of("/etc/egress/known_hosts"), null);

        SshTunnelSettings settings = config.sshAccess().tunnelSettings(HOST.settings(), DIAL);

        assertThat(settings.target()).isEqualTo(new SshHop("10.0.0.5", 2222, "egress", List.of(Path.of("/etc/egress/id")),
                HostKeyPolicy.knownHosts(Path.of("/etc/egress/known_hosts"))));
        assertThat(settings.jumps()).isEmpty();
        assertThat(settings.remoteSocketPath()).isEqualTo("/run/libvirt/sock");
        assertThat(settings.handshakeTimeout()).isEqualTo(Duration.ofSeconds(7));
        assertThat(settings.keepaliveInterval()).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void theInsecureOptInIgnoresHostKeys() {
        SshTunnelSettings settings = config(null, true).sshAccess().tunnelSettings(HOST.settings(), DIAL);

        assertThat(settings.target().hostKeyPolicy()).isEqualTo(HostKeyPolicy.insecureIgnoreHostKey());
    }

    private static KvmConfig config(Path knownHosts, Boolean insecure) {
        return new KvmConfig(List.of(HOST), Map.of("small", new MachineType(1, 512)),
                Map.of("debian-12", new KvmImage("https://example.org/d.qcow2", null)), null, null,
                Path.of("/etc/egress/id"), knownHosts, insecure, Duration.ofSeconds(7), Duration.ofSeconds(3), null, null, null, null);
    }
}

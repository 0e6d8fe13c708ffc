package dev.egressproxies.kvm.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.Operation;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.host.HostEndpoint;
import dev.egressproxies.kvm.common.ssh.HostKeyPolicy;
import dev.egressproxies.kvm.common.ssh.SshHop;
import dev.egressproxies.kvm.common.ssh.SshTunnelSettings;
import dev.egressproxies.kvm.common.xml.CpuMode;
import dev.egressproxies.kvm.common.xml.DomainType;
import dev.egressproxies.kvm.common.xml.UefiFirmware;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The settings both KVM backends' configurations are made of: their defaults, and refusals that name
 * the setting (the backends' binding tests check the same through YAML).
 */
class SharedSettingsTest {

    @Test
    void aHostWithOnlyTheRequiredSettingsGetsEveryDefault() {
        HostSettings host = HostSettings.of("host-1", "10.0.0.5", "br0");

        assertThat(host).isEqualTo(new HostSettings("host-1", "10.0.0.5", null, null, "/var/run/libvirt/libvirt-sock",
                "default", "br0", "kvm", null, UefiFirmware.DEFAULT_LOADER, UefiFirmware.DEFAULT_NVRAM_TEMPLATE, null));
        assertThat(host.endpoint()).isEqualTo(new HostEndpoint("host-1", "10.0.0.5", 22, "root",
                "/var/run/libvirt/libvirt-sock"));
        // Port and user stay unset, so ssh_config may give them; the endpoint names the defaults.
        assertThat(host.destination()).isEqualTo("10.0.0.5");
        assertThat(new HostSettings("host-1", "10.0.0.5", 22, "root", null, null, "br0", null, null, null, null, null)
                .destination()).isEqualTo("root@10.0.0.5:22");
        assertThat(host.platform().domainType()).isEqualTo(DomainType.KVM);
        assertThat(host.platform().cpuMode()).isEqualTo(CpuMode.defaultFor(DomainType.KVM));
        assertThat(host.platform().uefi()).isEqualTo(UefiFirmware.defaults());
    }

    @Test
    void firmwarePathsAreCheckedWhenGiven() {
        assertThatThrownBy(() -> new HostSettings("host-1", "a", null, null, null, null, "br0", null, null, "OVMF.fd",
                null, null)).hasMessageStartingWith("uefiLoader: 'OVMF.fd' is not an absolute path");
    }

    @Test
    void hostNamesMustBeUniqueAndNamedEntriesNamed() {
        HostSettings host = HostSettings.of("host-1", "a", "br0");

        assertThatThrownBy(() -> ConfigChecks.hosts(List.of(host, host), HostSettings::name))
                .hasMessageStartingWith("hosts: the name 'host-1' is used twice");
        assertThatThrownBy(() -> ConfigChecks.named("images", Map.of("bad name", 1), "x"))
                .hasMessageStartingWith("images: the name 'bad name' is not valid");
        assertThatThrownBy(() -> new MachineSize(0, 512)).hasMessageStartingWith("vcpus: 0 is out of range");
    }

    @Test
    void sshAccessNeedsAKnownHostsFileUnlessExplicitlyInsecure() throws Exception {
        assertThatThrownBy(() -> new SshAccess(Path.of("/k"), null, null, null, null))
                .hasMessageStartingWith("knownHostsFile: required");
        SshAccess insecure = new SshAccess(Path.of("/k"), null, true, null, null,
                Files.createTempFile("empty", "ssh_config"), null, null);

        assertThat(insecure.handshakeTimeout()).isNull();
        assertThat(insecure.dialTimeout()).isEqualTo(SshAccess.DEFAULT_HANDSHAKE_TIMEOUT.multipliedBy(2));
        assertThat(insecure.tunnelSettings(HostSettings.of("host-1", "10.0.0.5", "br0"), new Call("kvm", Operation.LIST_MANAGED, "", Deadline.none())))
                .isEqualTo(new SshTunnelSettings(new SshHop("10.0.0.5", 22, "root", List.of(Path.of("/k")),
                        HostKeyPolicy.insecureIgnoreHostKey()), List.of(), agentFromEnvironment(), null,
                        "/var/run/libvirt/libvirt-sock", SshAccess.DEFAULT_HANDSHAKE_TIMEOUT,
                        SshAccess.DEFAULT_KEEPALIVE_INTERVAL, SshTunnelSettings.DEFAULT_KEEPALIVE_MAX_MISSED));
        assertThat(new SshAccess(Path.of("/k"), Path.of("/h"), null, Duration.ofSeconds(3), null).dialTimeout())
                .isEqualTo(Duration.ofSeconds(6));
    }

    private static Path agentFromEnvironment() {
        String socket = System.getenv("SSH_AUTH_SOCK");
        return socket == null || socket.isBlank() ? null : Path.of(socket);
    }
}

package dev.egressproxies.kvm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.kvm.common.testing.FakeLinkDialer;
import dev.egressproxies.kvm.common.testing.RegistryBinding;
import dev.egressproxies.kvm.config.KvmConfig;
import dev.egressproxies.kvm.config.KvmHost;
import dev.egressproxies.kvm.config.KvmImage;
import dev.egressproxies.kvm.config.MachineType;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The configuration binds from YAML through the platform's registry, exactly as the runtime loads
 * it: reflectively through the config package's {@code opens}, with the registry's strict rules.
 */
class KvmConfigBindingTest {
    private final AtomicReference<KvmConfig> bound = new AtomicReference<>();
    private final KvmProviderFactory factory = new KvmProviderFactory((entry, config, context) -> {
        bound.set(config);
        return new FakeLinkDialer();
    });

    @Test
    void everySettingBinds() throws Exception {
        build("""
                providers:
                  - name: kvm-a
                    type: kvm
                    hosts:
                      - name: host-1
                        address: 127.0.0.1
                        port: 2222
                        user: root
                        socket: /var/run/libvirt/libvirt-sock
                        pool: egress-test
                        bridge: br0
                        domainType: qemu
                        cpuMode: host-model
                        firmware: uefi
                        uefiLoader: /usr/share/OVMF/OVMF_CODE_4M.fd
                        uefiVarsTemplate: /usr/share/OVMF/OVMF_VARS_4M.fd
                      - {name: host-2, address: hypervisor-2.example.org, bridge: br1}
                    machineTypes:
                      small: {vcpus: 1, memoryMiB: 512}
                      large: {vcpus: 4, memoryMiB: 4096}
                    images:
                      debian-12: {url: "http://127.0.0.1:8080/debian-12.qcow2", format: qcow2}
                      alpine: {url: "https://example.org/alpine.raw", format: raw}
                    diskSizeGb: 20
                    vendorData: "#cloud-config\\n"
                    sshKeyFile: /etc/egress/kvm/id_ed25519
                    knownHostsFile: /etc/egress/kvm/known_hosts
                    insecureIgnoreHostKey: false
                    handshakeTimeout: 10s
                    keepaliveInterval: 5s
                """);

        KvmConfig config = bound.get();
        assertThat(config.hosts()).containsExactly(
                new KvmHost("host-1", "127.0.0.1", 2222, "root", "/var/run/libvirt/libvirt-sock", "egress-test", "br0",
                        "qemu", "host-model", "uefi", "/usr/share/OVMF/OVMF_CODE_4M.fd",
                        "/usr/share/OVMF/OVMF_VARS_4M.fd", null),
                KvmHost.of("host-2", "hypervisor-2.example.org", "br1"));
        assertThat(config.machineTypes()).containsExactly(
                Map.entry("small", new MachineType(1, 512)), Map.entry("large", new MachineType(4, 4096)));
        assertThat(config.images()).containsEntry("alpine", new KvmImage("https://example.org/alpine.raw", "raw"));
        assertThat(config.diskSizeGb()).isEqualTo(20);
        assertThat(config.vendorData()).isEqualTo("#cloud-config\n");
        assertThat(config.sshKeyFile()).isEqualTo(Path.of("/etc/egress/kvm/id_ed25519"));
        assertThat(config.handshakeTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(config.keepaliveInterval()).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void theSmallestEntryBindsWithDefaults() throws Exception {
        build("""
                providers:
                  - name: kvm-a
                    type: kvm
                    hosts: [{name: host-1, address: 10.0.0.5, bridge: br0}]
                    machineTypes: {small: {vcpus: 1, memoryMiB: 512}}
                    images: {debian-12: {url: "https://example.org/debian-12.qcow2"}}
                    sshKeyFile: /etc/egress/kvm/id_ed25519
                    knownHostsFile: /etc/egress/kvm/known_hosts
                """);

        assertThat(bound.get().hosts().get(0).pool()).isEqualTo("default");
        assertThat(bound.get().diskSizeGb()).isEqualTo(10);
    }

    @Test
    void aMissingHostListIsReportedAtItsPath() {
        assertThat(problems("""
                providers:
                  - name: kvm-a
                    type: kvm
                    machineTypes: {small: {vcpus: 1, memoryMiB: 512}}
                    images: {debian-12: {url: "https://example.org/debian-12.qcow2"}}
                    sshKeyFile: /k
                    knownHostsFile: /h
                """)).singleElement().asString()
                .contains("providers[0].hosts: at least one host is required");
    }

    @Test
    void aTypoIsReportedAtItsPathWithTheKnownFields() {
        assertThat(problems("""
                providers:
                  - name: kvm-a
                    type: kvm
                    hosts: [{name: host-1, adress: 10.0.0.5, bridge: br0}]
                    machineTypes: {small: {vcpus: 1, memoryMiB: 512}}
                    images: {debian-12: {url: "https://example.org/debian-12.qcow2"}}
                    sshKeyFile: /k
                    knownHostsFile: /h
                """)).singleElement().asString()
                .contains("providers[0].hosts[0].adress: unknown field (known: address, bridge, cpuMode,");
    }

    @Test
    void aMissingRequiredNumberIsReported() {
        assertThat(problems("""
                providers:
                  - name: kvm-a
                    type: kvm
                    hosts: [{name: host-1, address: 10.0.0.5, bridge: br0}]
                    machineTypes: {small: {vcpus: 1}}
                    images: {debian-12: {url: "https://example.org/debian-12.qcow2"}}
                    sshKeyFile: /k
                    knownHostsFile: /h
                """)).singleElement().asString().contains("memoryMiB");
    }

    @Test
    void anInvalidValueIsReportedAtItsPathWithTheRecordsMessage() {
        assertThat(problems("""
                providers:
                  - name: kvm-a
                    type: kvm
                    hosts: [{name: host-1, address: 10.0.0.5, bridge: br0, firmware: efi}]
                    machineTypes: {small: {vcpus: 1, memoryMiB: 512}}
                    images: {debian-12: {url: "https://example.org/debian-12.qcow2"}}
                    sshKeyFile: /k
                    knownHostsFile: /h
                """)).singleElement().asString()
                .contains("providers[0].hosts[0].firmware: 'efi' is not supported; use one of bios, uefi");
    }

    private List<String> problems(String yaml) {
        return RegistryBinding.problems(factory, yaml, "kvm-a");
    }

    private void build(String yaml) throws Exception {
        assertThat(RegistryBinding.build(factory, yaml, "kvm-a")).isInstanceOf(KvmProvider.class);
    }
}

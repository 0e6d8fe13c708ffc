package dev.egressproxies.kvm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.egressproxies.kvm.common.seed.NoCloudSeed;
import dev.egressproxies.kvm.common.xml.CpuMode;
import dev.egressproxies.kvm.common.xml.DiskFormat;
import dev.egressproxies.kvm.common.xml.DomainType;
import dev.egressproxies.kvm.common.xml.HostPlatform;
import dev.egressproxies.kvm.common.xml.UefiFirmware;
import dev.egressproxies.kvm.config.KvmConfig;
import dev.egressproxies.kvm.config.KvmHost;
import dev.egressproxies.kvm.config.KvmImage;
import dev.egressproxies.kvm.config.MachineType;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The configuration records: their defaults, and errors that name the setting to fix. */
class KvmConfigTest {
    private static final KvmHost HOST = KvmHost.of("host-1", "10.0.0.5", "br0");
    private static final Map<String, MachineType> TYPES = Map.of("small", new MachineType(1, 512));
    private static final Map<String, KvmImage> IMAGES =
            Map.of("debian-12", new KvmImage("https://example.org/d.qcow2", null));
    private static final Path KEY = Path.of("/etc/egress/id_ed25519");
    private static final Path KNOWN_HOSTS = Path.of("/etc/egress/known_hosts");

    @Test
    void absentSettingsGetTheirDefaults() {
        KvmConfig config = new KvmConfig(List.of(HOST), TYPES, IMAGES, null, null, KEY, KNOWN_HOSTS, null, null, null, null, null, null, null);

        assertThat(config.diskSizeGb()).isEqualTo(10);
        assertThat(config.vendorData()).isEqualTo(NoCloudSeed.DEFAULT_VENDOR_DATA);
        assertThat(config.insecureIgnoreHostKey()).isFalse();
        // Unset, so ssh_config's ConnectTimeout and ServerAliveInterval may apply; else 30 s and 15 s.
        assertThat(config.handshakeTimeout()).isNull();
        assertThat(config.keepaliveInterval()).isNull();
        assertThat(config.sshAccess().dialTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(config.images().get("debian-12").format()).isEqualTo("qcow2");
        assertThat(config.images().get("debian-12").diskFormat()).isEqualTo(DiskFormat.QCOW2);
        assertThat(HOST).isEqualTo(new KvmHost("host-1", "10.0.0.5", null, null, "/var/run/libvirt/libvirt-sock",
                "default", "br0", "kvm", null, "bios", null, null, null));
    }

    @Test
    void anEmptyVendorDataStaysEmpty() {
        KvmConfig config = new KvmConfig(List.of(HOST), TYPES, IMAGES, null, "", KEY, KNOWN_HOSTS, null, null, null, null, null, null, null);

        assertThat(config.vendorData()).isEmpty();
    }

    @Test
    void theCpuModeDefaultsToHostModelUnderKvmAndToQemusModelUnderEmulation() {
        assertThat(KvmHost.of("h", "a", "br0").settings().platform().cpuMode()).isEqualTo(CpuMode.hostModel());
        assertThat(new KvmHost("h", "a", null, null, null, null, "br0", "qemu", null, null, null, null, null).settings()
                .platform().cpuMode()).isEqualTo(CpuMode.hypervisorDefault());
        assertThat(new KvmHost("h", "a", null, null, null, null, "br0", "kvm", "Skylake-Client", null, null, null, null)
                .settings().platform().cpuMode()).isEqualTo(CpuMode.named("Skylake-Client"));
        assertThat(new KvmHost("h", "a", null, null, null, null, "br0", "qemu", "host-passthrough", null, null, null, null)
                .settings().platform().cpuMode()).isEqualTo(CpuMode.hostPassthrough());
    }

    @Test
    void theHostsPlatformCarriesItsDomainTypeAndFirmware() {
        KvmHost uefi = new KvmHost("h", "a", null, null, null, null, "br0", "QEMU", null, "uefi", "/fw/code.fd",
                "/fw/vars.fd", null);

        assertThat(uefi.domainType()).as("the type, spelled as libvirt does").isEqualTo("qemu");
        assertThat(uefi.settings().platform()).isEqualTo(new HostPlatform(DomainType.QEMU, CpuMode.hypervisorDefault(),
                new UefiFirmware("/fw/code.fd", "/fw/vars.fd")));
        assertThat(KvmHost.of("h", "a", "br0").settings().platform().domainType()).isEqualTo(DomainType.KVM);
    }

    @Test
    void uefiGetsTheDefaultFirmwarePaths() {
        KvmHost uefi = new KvmHost("h", "a", null, null, null, null, "br0", "qemu", null, "uefi", null, null, null);

        assertThat(uefi.uefi()).isTrue();
        assertThat(uefi.uefiLoader()).isEqualTo("/usr/share/OVMF/OVMF_CODE_4M.fd");
        assertThat(uefi.uefiVarsTemplate()).isEqualTo("/usr/share/OVMF/OVMF_VARS_4M.fd");
    }

    @Test
    void theHostsEndpointCarriesItsConnectionSettings() {
        KvmHost host = new KvmHost("h", "a.example", 2222, "egress", "/run/libvirt/sock", null, "br0", null, null, null,
                null, null, null);

        assertThat(host.settings().endpoint().address()).isEqualTo("a.example");
        assertThat(host.settings().endpoint().port()).isEqualTo(2222);
        assertThat(host.settings().endpoint().user()).isEqualTo("egress");
        assertThat(host.settings().endpoint().socket()).isEqualTo("/run/libvirt/sock");
        assertThat(host.settings().destination()).isEqualTo("egress@a.example:2222");
    }

    @Test
    void hostsAreRequired() {
        assertRejected(() -> new KvmConfig(null, TYPES, IMAGES, null, null, KEY, KNOWN_HOSTS, null, null, null, null, null, null, null),
                "hosts: at least one host is required");
        assertRejected(() -> new KvmConfig(List.of(), TYPES, IMAGES, null, null, KEY, KNOWN_HOSTS, null, null, null, null, null, null, null),
                "hosts: at least one host is required");
    }

    @Test
    void hostNamesAreUnique() {
        assertRejected(() -> new KvmConfig(List.of(HOST, KvmHost.of("host-1", "10.0.0.6", "br0")), TYPES, IMAGES, null,
                null, KEY, KNOWN_HOSTS, null, null, null, null, null, null, null), "hosts: the name 'host-1' is used twice");
    }

    @ParameterizedTest
    @ValueSource(strings = {"host/1", "-host", "host-", "h o", ""})
    void hostNamesMustBeUsableInProviderIds(String name) {
        assertRejected(() -> KvmHost.of(name, "10.0.0.5", "br0"), "name: ");
    }

    @Test
    void hostSettingsAreChecked() {
        assertRejected(() -> KvmHost.of("h", null, "br0"), "address: required");
        assertRejected(() -> KvmHost.of("h", "a", null), "bridge: required");
        assertRejected(() -> KvmHost.of("h", "a", "a-very-long-bridge-name"), "bridge: 'a-very-long-bridge-name'");
        assertRejected(() -> new KvmHost("h", "a", 0, null, null, null, "br0", null, null, null, null, null, null),
                "port: 0 is not a TCP port");
        assertRejected(() -> new KvmHost("h", "a", null, null, "libvirt-sock", null, "br0", null, null, null, null,
                null, null), "socket: 'libvirt-sock' is not an absolute path");
        assertRejected(() -> new KvmHost("h", "a", null, null, null, "/var/lib/libvirt/images", "br0", null, null, null,
                null, null, null), "pool: '/var/lib/libvirt/images' contains '/'");
        assertRejected(() -> new KvmHost("h", "a", null, null, null, null, "br0", "xen", null, null, null, null, null),
                "domainType: domain type 'xen' is not one of 'kvm' or 'qemu'");
        assertRejected(() -> new KvmHost("h", "a", null, null, null, null, "br0", null, "host model", null, null, null, null),
                "cpuMode: 'host model' contains spaces");
        assertRejected(() -> new KvmHost("h", "a", null, null, null, null, "br0", null, null, "efi", null, null, null),
                "firmware: 'efi' is not supported; use one of bios, uefi");
        assertRejected(() -> new KvmHost("h", "a", null, null, null, null, "br0", null, null, null, "/x.fd", null, null),
                "uefiLoader: only used with firmware: uefi");
        assertRejected(() -> new KvmHost("h", "a", null, null, null, null, "br0", null, null, "uefi", null, "vars.fd", null),
                "uefiVarsTemplate: 'vars.fd' is not an absolute path");
    }

    @Test
    void machineTypesAndImagesAreRequiredAndChecked() {
        assertRejected(() -> new KvmConfig(List.of(HOST), Map.of(), IMAGES, null, null, KEY, KNOWN_HOSTS, null, null,
                null, null, null, null, null), "machineTypes: at least one is required");
        assertRejected(() -> new KvmConfig(List.of(HOST), TYPES, null, null, null, KEY, KNOWN_HOSTS, null, null, null, null, null, null, null),
                "images: at least one is required");
        assertRejected(() -> new KvmConfig(List.of(HOST), TYPES, Map.of("debian/12", IMAGES.get("debian-12")), null,
                null, KEY, KNOWN_HOSTS, null, null, null, null, null, null, null), "images: the name 'debian/12' is not valid");
        assertRejected(() -> new MachineType(0, 512), "vcpus: 0 is out of range");
        assertRejected(() -> new MachineType(1, 0), "memoryMiB: 0 is not positive");
        assertRejected(() -> new KvmImage("ftp://example.org/d.qcow2", null), "url: 'ftp://example.org/d.qcow2' is not"
                + " an http or https URL");
        assertRejected(() -> new KvmImage("https:///d.qcow2", null), "url: ");
        assertRejected(() -> new KvmImage(null, null), "url: required");
        assertRejected(() -> new KvmImage("https://example.org/d.vmdk", "vmdk"),
                "format: disk format 'vmdk' is not one of 'raw' or 'qcow2'");
    }

    @Test
    void sshSettingsAreChecked() {
        assertRejected(() -> new KvmConfig(List.of(HOST), TYPES, IMAGES, null, null, null, KNOWN_HOSTS, null, null,
                null, null, null, null, null), "sshKeyFile: required");
        assertRejected(() -> new KvmConfig(List.of(HOST), TYPES, IMAGES, null, null, KEY, null, null, null, null, null, null, null, null),
                "knownHostsFile: required");
        assertRejected(() -> new KvmConfig(List.of(HOST), TYPES, IMAGES, null, null, KEY, KNOWN_HOSTS, true, null,
                null, null, null, null, null), "knownHostsFile: set together with insecureIgnoreHostKey");
        assertThat(new KvmConfig(List.of(HOST), TYPES, IMAGES, null, null, KEY, null, true, null, null, null, null, null, null)
                .insecureIgnoreHostKey()).isTrue();
        assertRejected(() -> new KvmConfig(List.of(HOST), TYPES, IMAGES, null, null, KEY, KNOWN_HOSTS, null,
                Duration.ZERO, null, null, null, null, null), "handshakeTimeout: PT0S is not positive");
        assertRejected(() -> new KvmConfig(List.of(HOST), TYPES, IMAGES, null, null, KEY, KNOWN_HOSTS, null, null,
                Duration.ofSeconds(-1), null, null, null, null), "keepaliveInterval: ");
    }

    @Test
    void diskSizeIsChecked() {
        assertRejected(() -> new KvmConfig(List.of(HOST), TYPES, IMAGES, 0, null, KEY, KNOWN_HOSTS, null, null, null, null, null, null, null),
                "diskSizeGb: 0 is out of range");
    }

    private static void assertRejected(Runnable construction, String messageStart) {
        assertThatThrownBy(construction::run).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(messageStart);
    }
}

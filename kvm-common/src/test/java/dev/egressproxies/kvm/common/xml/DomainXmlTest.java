package dev.egressproxies.kvm.common.xml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.egressproxies.kvm.common.testing.ParsedXml;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import org.junit.jupiter.params.provider.ValueSource;

class DomainXmlTest {
    private static final Instant CREATED = Instant.parse("2024-05-06T07:08:09Z");
    private static final HostPlatform KVM = HostPlatform.defaultsFor(DomainType.KVM);

    private static final String ENTRY = "lab";

    private static DomainDefinition definition(String name, String path, String bridge, String uid, HostPlatform platform,
                                               boolean uefi) {
        return definition(name, path, bridge, new InstanceMetadata(uid, CREATED, ENTRY), platform, uefi);
    }

    private static DomainDefinition definition(String name, String path, String bridge, InstanceMetadata metadata,
                                               HostPlatform platform, boolean uefi) {
        return new DomainDefinition(name, 512, 2, platform, uefi, path + "/disk.qcow2", path + "/seed.iso", bridge,
                metadata);
    }

    private static DomainDefinition plain() {
        return definition("proxy-1", "/pool", "br0", "uid-1", KVM, false);
    }

    @Nested
    class Structure {
        @Test
        void describesAKvmGuestWithAllItsDevices() {
            ParsedXml xml = ParsedXml.of(DomainXml.of(plain()));

            assertThat(xml.text("/domain/@type")).isEqualTo("kvm");
            assertThat(xml.text("/domain/name")).isEqualTo("proxy-1");
            assertThat(xml.text("/domain/memory")).isEqualTo("512");
            assertThat(xml.text("/domain/memory/@unit")).isEqualTo("MiB");
            assertThat(xml.text("/domain/vcpu")).isEqualTo("2");
            assertThat(xml.text("/domain/os/type")).isEqualTo("hvm");
            assertThat(xml.text("/domain/os/type/@arch")).isEqualTo("x86_64");
            assertThat(xml.count("/domain/os/loader")).isZero();
            assertThat(xml.count("/domain/os/nvram")).isZero();
            assertThat(xml.text("/domain/cpu/@mode")).isEqualTo("host-model");
            assertThat(xml.text("/domain/devices/disk[@device='disk']/driver/@type")).isEqualTo("qcow2");
            assertThat(xml.text("/domain/devices/disk[@device='disk']/source/@file")).isEqualTo("/pool/disk.qcow2");
            assertThat(xml.text("/domain/devices/disk[@device='disk']/target/@bus")).isEqualTo("virtio");
            assertThat(xml.text("/domain/devices/disk[@device='cdrom']/source/@file")).isEqualTo("/pool/seed.iso");
            assertThat(xml.text("/domain/devices/disk[@device='cdrom']/target/@bus")).isEqualTo("sata");
            assertThat(xml.count("/domain/devices/disk[@device='cdrom']/readonly")).isOne();
            assertThat(xml.text("/domain/devices/interface[@type='bridge']/source/@bridge")).isEqualTo("br0");
            assertThat(xml.text("/domain/devices/interface/model/@type")).isEqualTo("virtio");
            assertThat(xml.count("/domain/devices/serial[@type='pty']")).isOne();
            assertThat(xml.text("/domain/devices/console/target/@type")).isEqualTo("serial");
            assertThat(xml.text("/domain/devices/channel[@type='unix']/target/@name"))
                    .isEqualTo("org.qemu.guest_agent.0");
        }

        @Test
        void carriesThePlatformMetadataInItsNamespace() {
            ParsedXml xml = ParsedXml.of(DomainXml.of(plain()));

            assertThat(xml.text("/domain/metadata/ep:instance/ep:uid")).isEqualTo("uid-1");
            assertThat(xml.text("/domain/metadata/ep:instance/ep:created")).isEqualTo("2024-05-06T07:08:09Z");
            assertThat(xml.text("/domain/metadata/ep:instance/ep:entry")).isEqualTo(ENTRY);
        }

        @Test
        void refusesMetadataThatNamesNoEntry() {
            InstanceMetadata unscoped = new InstanceMetadata("uid-1", CREATED, Optional.empty());

            assertThatThrownBy(() -> DomainXml.of(definition("proxy-1", "/pool", "br0", unscoped, KVM, false)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("must name its provider entry");
        }

        @Test
        void writesNoXmlDeclaration() {
            assertThat(DomainXml.of(plain())).startsWith("<domain");
        }

        @Test
        void uefiGuestsGetTheHostsLoaderAndNvramTemplate() {
            HostPlatform platform = new HostPlatform(DomainType.QEMU, CpuMode.hypervisorDefault(),
                    new UefiFirmware("/fw/CODE.fd", "/fw/VARS.fd"));

            ParsedXml xml = ParsedXml.of(DomainXml.of(definition("u", "/p", "br0", "id", platform, true)));

            assertThat(xml.text("/domain/@type")).isEqualTo("qemu");
            assertThat(xml.text("/domain/os/loader")).isEqualTo("/fw/CODE.fd");
            assertThat(xml.text("/domain/os/loader/@readonly")).isEqualTo("yes");
            assertThat(xml.text("/domain/os/loader/@type")).isEqualTo("pflash");
            assertThat(xml.text("/domain/os/nvram/@template")).isEqualTo("/fw/VARS.fd");
            assertThat(xml.count("/domain/cpu")).isZero();
        }

        @Test
        void cpuModesAreWrittenAsLibvirtExpects() {
            assertThat(cpuOf(CpuMode.hostPassthrough()).text("/domain/cpu/@mode")).isEqualTo("host-passthrough");
            ParsedXml named = cpuOf(CpuMode.named("qemu64"));
            assertThat(named.text("/domain/cpu/@mode")).isEqualTo("custom");
            assertThat(named.text("/domain/cpu/model")).isEqualTo("qemu64");
            assertThat(named.text("/domain/cpu/model/@fallback")).isEqualTo("allow");
            assertThat(cpuOf(CpuMode.hypervisorDefault()).count("/domain/cpu")).isZero();
        }

        private ParsedXml cpuOf(CpuMode mode) {
            HostPlatform platform = new HostPlatform(DomainType.KVM, mode, UefiFirmware.defaults());
            return ParsedXml.of(DomainXml.of(definition("c", "/p", "br0", "id", platform, false)));
        }
    }

    @Nested
    class Escaping {
        @ParameterizedTest
        @FieldSource("dev.egressproxies.kvm.common.xml.HostileText#VALUES")
        void everyValueRoundTripsUnchanged(String hostile) {
            DomainDefinition definition = definition(hostile, "/pool/" + hostile, hostile,
                    new InstanceMetadata(hostile, CREATED, hostile), KVM, false);

            String xml = DomainXml.of(definition);
            ParsedXml parsed = ParsedXml.of(xml);

            assertThat(parsed.count("/domain")).isOne();
            assertThat(parsed.count("/domain/devices/disk")).isEqualTo(2);
            assertThat(parsed.text("/domain/name")).isEqualTo(hostile);
            assertThat(parsed.text("/domain/devices/disk[@device='disk']/source/@file"))
                    .isEqualTo("/pool/" + hostile + "/disk.qcow2");
            assertThat(parsed.text("/domain/devices/interface/source/@bridge")).isEqualTo(hostile);
            assertThat(parsed.text("/domain/metadata/ep:instance/ep:uid")).isEqualTo(hostile);
            assertThat(parsed.text("/domain/metadata/ep:instance/ep:entry")).isEqualTo(hostile);
        }

        @Test
        void hostileUefiPathsRoundTrip() {
            String path = "/fw/\"a'&<b>]]>.fd";
            HostPlatform platform = new HostPlatform(DomainType.QEMU, CpuMode.named("m\"<&>"),
                    new UefiFirmware(path, path + ".vars"));

            ParsedXml parsed = ParsedXml.of(DomainXml.of(definition("n", "/p", "b", "i", platform, true)));

            assertThat(parsed.text("/domain/os/loader")).isEqualTo(path);
            assertThat(parsed.text("/domain/os/nvram/@template")).isEqualTo(path + ".vars");
            assertThat(parsed.text("/domain/cpu/model")).isEqualTo("m\"<&>");
        }

        @ParameterizedTest
        @ValueSource(strings = {"nul\u0000", "bell\u0007", "escape\u001B[0m", "lone\uD800surrogate", "\uFFFE"})
        void textXmlCannotCarryIsRefusedNamingTheField(String unrepresentable) {
            assertThatThrownBy(() -> DomainXml.of(definition("ok", "/p", unrepresentable, "id", KVM, false)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("source/@bridge")
                    .hasMessageContaining("XML cannot carry");
        }
    }

    @Nested
    class Validation {
        @Test
        void refusesNonPositiveSizes() {
            assertThatThrownBy(() -> new DomainDefinition("n", 0, 1, KVM, false, "/d", "/s", "b",
                    new InstanceMetadata("u", CREATED, ENTRY))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("memory");
            assertThatThrownBy(() -> new DomainDefinition("n", 1, 0, KVM, false, "/d", "/s", "b",
                    new InstanceMetadata("u", CREATED, ENTRY))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("vCPU");
        }

        @Test
        void refusesBlankNamesAndPaths() {
            assertThatThrownBy(() -> new DomainDefinition(" ", 1, 1, KVM, false, "/d", "/s", "b",
                    new InstanceMetadata("u", CREATED, ENTRY))).hasMessageContaining("domain name");
            assertThatThrownBy(() -> new DomainDefinition("n", 1, 1, KVM, false, "/d", "/s", "",
                    new InstanceMetadata("u", CREATED, ENTRY))).hasMessageContaining("bridge");
        }
    }
}

package dev.egressproxies.kvm.common.xml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The host settings that go into domains, and how configuration text names them. */
class HostSettingsTest {

    @Test
    void cpuModeSettingsNameTheLibvirtModesOrAModel() {
        assertThat(CpuMode.parse("host-model")).isEqualTo(CpuMode.hostModel());
        assertThat(CpuMode.parse(" HOST-PASSTHROUGH ")).isEqualTo(CpuMode.hostPassthrough());
        assertThat(CpuMode.parse("default")).isEqualTo(CpuMode.hypervisorDefault());
        assertThat(CpuMode.parse("Skylake-Client")).isEqualTo(CpuMode.named("Skylake-Client"));
        assertThatThrownBy(() -> CpuMode.parse("  ")).hasMessageContaining("host-model, host-passthrough, default");
    }

    @Test
    void kvmDefaultsToHostModelBecausePassthroughFailsOnNestedHosts() {
        assertThat(CpuMode.defaultFor(DomainType.KVM)).isEqualTo(CpuMode.hostModel());
        assertThat(CpuMode.defaultFor(DomainType.QEMU)).isEqualTo(CpuMode.hypervisorDefault());
    }

    @Test
    void domainTypesAndDiskFormatsParseTheirNames() {
        assertThat(DomainType.parse("KVM")).isEqualTo(DomainType.KVM);
        assertThat(DomainType.parse("qemu")).isEqualTo(DomainType.QEMU);
        assertThatThrownBy(() -> DomainType.parse("xen")).hasMessageContaining("'kvm' or 'qemu'");
        assertThat(DiskFormat.parse("QCOW2")).isEqualTo(DiskFormat.QCOW2);
        assertThatThrownBy(() -> DiskFormat.parse("vmdk")).hasMessageContaining("'raw' or 'qcow2'");
    }

    @Test
    void uefiDefaultsAreDebiansNonSecureBootBuild() {
        UefiFirmware firmware = HostPlatform.defaultsFor(DomainType.QEMU).uefi();

        assertThat(firmware.loader()).isEqualTo("/usr/share/OVMF/OVMF_CODE_4M.fd");
        assertThat(firmware.nvramTemplate()).isEqualTo("/usr/share/OVMF/OVMF_VARS_4M.fd");
        assertThatThrownBy(() -> new UefiFirmware("/code.fd", "")).hasMessageContaining("NVRAM template");
    }
}

package dev.egressproxies.kvm.common.instance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.PreflightCheck;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.testing.FakeLibvirtHost;
import dev.egressproxies.kvm.common.testing.Requests;
import dev.egressproxies.kvm.common.xml.DomainCapabilities;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The preflight checks of a host's settings against what its libvirt offers: the bridge, the
 * domain type, the CPU mode and the UEFI loader. A failed check names the setting and the fix; no
 * check creates anything.
 */
class HostSettingPreflightTest {
    private EngineFixture fixture = EngineFixture.oneHost();

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void aMissingBridgeFailsItsCheckNamingTheSetting() {
        fixture.host().withoutInterface(EngineFixture.BRIDGE);

        PreflightCheck bridge = check("hosts[0].bridge on host host-1");

        assertThat(bridge.passed()).isFalse();
        assertThat(bridge.detail()).isEqualTo("hosts[0].bridge 'br-test' does not exist on host 'host-1': create it"
                + " or name an existing bridge ('ip link show type bridge' there lists them)");
        assertThat(fixture.host().domainNames()).isEmpty();
    }

    @Test
    void aDomainTypeTheHostDoesNotOfferFailsAndSkipsTheChecksThatNeedIt() {
        fixture.host().withDomainCapabilities("qemu", null);

        List<PreflightCheck> checks = fixture.engine.preflight(Requests.deadline());

        PreflightCheck type = named(checks, "hosts[0].domainType on host host-1");
        assertThat(type.passed()).isFalse();
        assertThat(type.detail()).startsWith("hosts[0].domainType 'qemu' is not offered by host 'host-1'");
        assertThat(checks).extracting(PreflightCheck::name).doesNotContain("hosts[0].cpuMode on host host-1");
    }

    @Test
    void aUefiLoaderLibvirtDoesNotOfferFailsListingTheOffered() {
        replaceHost(hostWith(null, "/nonexistent/OVMF_CODE.fd"));

        PreflightCheck loader = check("hosts[0].uefiLoader on host host-1");

        assertThat(loader.passed()).isFalse();
        assertThat(loader.detail()).startsWith("hosts[0].uefiLoader '/nonexistent/OVMF_CODE.fd' cannot be used on"
                + " host 'host-1'").contains("libvirt offers [/usr/share/OVMF/OVMF_CODE_4M.fd]");
    }

    @Test
    void anUnknownCpuModelFailsAndAKnownButUnusableOneIsReported() {
        replaceHost(hostWith("NoSuchCpu", null));
        PreflightCheck unknown = check("hosts[0].cpuMode on host host-1");
        replaceHost(hostWith("Skylake-Client", null));
        PreflightCheck unusable = check("hosts[0].cpuMode on host host-1");
        replaceHost(hostWith("host-passthrough", null));
        PreflightCheck supported = check("hosts[0].cpuMode on host host-1");

        assertThat(unknown.passed()).isFalse();
        assertThat(unknown.detail()).startsWith("hosts[0].cpuMode 'NoSuchCpu' is not a CPU model QEMU knows on host"
                + " 'host-1'");
        assertThat(unusable.passed()).isTrue();
        assertThat(unusable.detail()).startsWith("Skylake-Client is known but not usable");
        assertThat(supported.passed()).isTrue();
        assertThat(supported.detail()).isEqualTo("host-passthrough supported");
    }

    @Test
    void theStacksDomainCapabilitiesAreRead() {
        DomainCapabilities offered = DomainCapabilities.parse(
                FakeLibvirtHost.domainCapabilitiesXml("kvm"));

        assertThat(offered.machine()).isEqualTo("pc-i440fx-7.2");
        assertThat(offered.loaders()).containsExactly("/usr/share/OVMF/OVMF_CODE_4M.fd");
        assertThat(offered.cpuModes()).containsExactly("host-passthrough", "maximum", "host-model", "custom");
        assertThat(offered.cpuModels()).containsEntry("qemu64", true).containsEntry("Skylake-Client", false);
    }

    private static HostSettings hostWith(String cpuMode, String uefiLoader) {
        return new HostSettings("host-1", "127.0.0.1", 2222, "root", null, EngineFixture.POOL, EngineFixture.BRIDGE,
                "qemu", cpuMode, uefiLoader, null, null);
    }

    private void replaceHost(HostSettings host) {
        fixture.close();
        fixture = EngineFixture.withHost(host);
    }

    private PreflightCheck check(String name) {
        return named(fixture.engine.preflight(Requests.deadline()), name);
    }

    private static PreflightCheck named(List<PreflightCheck> checks, String name) {
        return checks.stream().filter(check -> check.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no check " + name + " in " + checks));
    }
}

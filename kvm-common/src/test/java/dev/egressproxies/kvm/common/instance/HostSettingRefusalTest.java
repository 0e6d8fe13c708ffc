package dev.egressproxies.kvm.common.instance;

import static dev.egressproxies.kvm.common.instance.EngineFixture.BASE_VOLUME;
import static dev.egressproxies.kvm.common.instance.EngineFixture.POOL;
import static dev.egressproxies.kvm.common.instance.EngineFixture.overlay;
import static dev.egressproxies.kvm.common.instance.EngineFixture.seed;
import static dev.egressproxies.kvm.common.testing.Requests.catchProviderException;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrorCode;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrorSource;
import dev.egressproxies.kvm.common.libvirt.LibvirtException;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.DomainState;
import dev.egressproxies.kvm.common.testing.FakeLibvirtHost;
import dev.egressproxies.kvm.common.testing.PlatformMetadata;
import dev.egressproxies.kvm.common.testing.Requests;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A create that libvirt refuses for good because of a host setting: PERMANENT, naming the setting
 * to fix, with what the create made for the instance removed; and what stays TRANSIENT. The
 * errors are the ones this libvirt 9.0 answers (code, source, OS error number, message).
 */
class HostSettingRefusalTest {
    private final EngineFixture fixture = EngineFixture.oneHost();
    private final FakeLibvirtHost host = fixture.host();

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void aMissingBridgeNamesTheSettingAndLeavesNothingOfTheInstance() {
        fixture.cacheBaseImage();
        host.failNext("startDomain", FakeLibvirtHost.daemonError(LibvirtErrorCode.SYSTEM_ERROR,
                LibvirtErrorSource.NONE, 19, "Cannot get interface MTU on 'br-test': No such device"));

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.detail()).startsWith("hosts[0].bridge 'br-test' does not exist on host 'host-1': create it"
                + " or name an existing bridge").contains("No such device", "nothing of instance proxy-1 was left");
        assertNothingOfTheInstanceLeft();
        assertThat(host.callCounts()).containsEntry("undefineDomain", 1);
    }

    @Test
    void aMissingUefiLoaderNamesTheSettingAndLeavesNothingOfTheInstance() {
        host.failNext("startDomain", FakeLibvirtHost.daemonError(LibvirtErrorCode.SYSTEM_ERROR,
                LibvirtErrorSource.CGROUP, 2, "Path '/usr/share/OVMF/OVMF_CODE_4M.fd' is not accessible: No such"
                        + " file or directory"));

        ProviderException error = catchProviderException(() -> fixture.engine.create(Requests.request("proxy-1",
                new Placement("host-1", "small", EngineFixture.UEFI_IMAGE)), Requests.deadline()));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.detail()).startsWith("hosts[0].uefiLoader '/usr/share/OVMF/OVMF_CODE_4M.fd' does not exist"
                + " on host 'host-1': install the UEFI firmware there");
        assertThat(host.domainNames()).isEmpty();
        assertThat(host.volumeNames(POOL)).doesNotContain(overlay("proxy-1"), seed("proxy-1"));
    }

    @Test
    void aMissingVariablesTemplateNamesItsSetting() {
        fixture.cacheBaseImage();
        host.failNext("startDomain", FakeLibvirtHost.daemonError(LibvirtErrorCode.SYSTEM_ERROR,
                LibvirtErrorSource.QEMU, 2, "Failed to open file '/usr/share/OVMF/OVMF_VARS_4M.fd': No such file"));

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.detail()).startsWith("hosts[0].uefiVarsTemplate '/usr/share/OVMF/OVMF_VARS_4M.fd' does not"
                + " exist on host 'host-1'");
        assertNothingOfTheInstanceLeft();
    }

    @Test
    void anUnknownCpuModelNamesTheCpuMode() {
        fixture.cacheBaseImage();
        host.failNext("startDomain", FakeLibvirtHost.daemonError(LibvirtErrorCode.INTERNAL_ERROR,
                LibvirtErrorSource.CPU, LibvirtException.NO_SYSTEM_ERROR_NUMBER,
                "internal error: Unknown CPU model NoSuchCpu"));

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.detail()).startsWith("hosts[0].cpuMode (unset: the default of domainType qemu) cannot be"
                + " used on host 'host-1'").contains("Unknown CPU model");
        assertNothingOfTheInstanceLeft();
    }

    @Test
    void aDomainTypeTheHostDoesNotOfferIsRefusedAtTheDefinitionAndTheVolumesGo() {
        fixture.cacheBaseImage();
        host.failNext("defineDomain", FakeLibvirtHost.daemonError(LibvirtErrorCode.CONFIG_UNSUPPORTED,
                LibvirtErrorSource.QEMU, LibvirtException.NO_SYSTEM_ERROR_NUMBER, "unsupported configuration:"
                        + " Emulator '/usr/bin/qemu-system-x86_64' does not support virt type 'qemu'"));

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.detail()).startsWith("hosts[0].domainType 'qemu' is not offered by host 'host-1'");
        assertNothingOfTheInstanceLeft();
        assertThat(host.callCounts()).doesNotContainKey("undefineDomain");
    }

    @Test
    void anOsErrorThatARetryCanHealIsTransientAndLeavesWhatTheNextCreateReuses() {
        fixture.cacheBaseImage();
        host.failNext("startDomain", FakeLibvirtHost.daemonError(LibvirtErrorCode.SYSTEM_ERROR,
                LibvirtErrorSource.QEMU, 11, "Unable to open monitor: Resource temporarily unavailable"));

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(host.domain("proxy-1").state).isEqualTo(DomainState.SHUTOFF);
        assertThat(host.volumeNames(POOL)).contains(overlay("proxy-1"), seed("proxy-1"));

        fixture.create("proxy-1");

        assertThat(host.domain("proxy-1").state).isEqualTo(DomainState.RUNNING);
    }

    @Test
    void aDomainAnEarlierCreateDefinedStaysAndTheErrorSaysToDeleteIt() {
        host.putDomain("proxy-1", DomainState.SHUTOFF, PlatformMetadata.of(EngineFixture.ENTRY, "uid-proxy-1"));
        host.putVolume(POOL, overlay("proxy-1"), new byte[0]);
        host.failNext("startDomain", FakeLibvirtHost.daemonError(LibvirtErrorCode.SYSTEM_ERROR,
                LibvirtErrorSource.NONE, 19, "Cannot get interface MTU on 'br-test': No such device"));

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.detail()).startsWith("hosts[0].bridge 'br-test' does not exist")
                .contains("was defined by an earlier create", "delete the instance and create it again");
        assertThat(host.domainNames()).containsExactly("proxy-1");
        assertThat(host.volumeNames(POOL)).contains(overlay("proxy-1"));
    }

    @Test
    void aFailedRemovalIsNamedInTheError() {
        fixture.cacheBaseImage();
        host.failNext("startDomain", FakeLibvirtHost.daemonError(LibvirtErrorCode.SYSTEM_ERROR,
                LibvirtErrorSource.NONE, 19, "Cannot get interface MTU on 'br-test': No such device"));
        host.failNext("undefineDomain", FakeLibvirtHost.error(LibvirtErrorCode.INTERNAL_ERROR, "busy"));

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.detail()).startsWith("hosts[0].bridge 'br-test' does not exist")
                .contains("removing what this create made failed", "busy", "delete the instance");
        assertThat(error.getCause().getSuppressed()).hasSize(1);
    }

    private void assertNothingOfTheInstanceLeft() {
        assertThat(host.domainNames()).as("domains").isEmpty();
        assertThat(host.volumeNames(POOL)).as("the base stays, the instance's volumes go").containsExactly(BASE_VOLUME);
    }
}

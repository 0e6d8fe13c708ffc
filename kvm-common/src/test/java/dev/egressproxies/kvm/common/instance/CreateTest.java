package dev.egressproxies.kvm.common.instance;

import static dev.egressproxies.kvm.common.instance.EngineFixture.BASE_VOLUME;
import static dev.egressproxies.kvm.common.instance.EngineFixture.IMAGE_BYTES;
import static dev.egressproxies.kvm.common.instance.EngineFixture.OTHER_ENTRY;
import static dev.egressproxies.kvm.common.instance.EngineFixture.POOL;
import static dev.egressproxies.kvm.common.instance.EngineFixture.overlay;
import static dev.egressproxies.kvm.common.instance.EngineFixture.seed;
import static dev.egressproxies.kvm.common.testing.Requests.catchProviderException;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrorCode;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.DomainState;
import dev.egressproxies.kvm.common.seed.NoCloudSeed;
import dev.egressproxies.kvm.common.testing.FakeLibvirtHost;
import dev.egressproxies.kvm.common.testing.InstanceVolumes;
import dev.egressproxies.kvm.common.testing.ParsedXml;
import dev.egressproxies.kvm.common.testing.PlatformMetadata;
import dev.egressproxies.kvm.common.testing.Requests;
import dev.egressproxies.kvm.common.testing.TestProviderContext;
import dev.egressproxies.kvm.common.xml.InstanceMetadata;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The branches of the engine's create on a host: from nothing, on an existing domain, and from what a crash left. */
class CreateTest {
    private final EngineFixture fixture = EngineFixture.oneHost();
    private final FakeLibvirtHost host = fixture.host();

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void freshCreateMakesOverlayAndSeedThenDefinesAndStartsTheDomain() {
        fixture.cacheBaseImage();

        String id = fixture.create("proxy-1");

        assertThat(id).isEqualTo("host-1/proxy-1");
        FakeLibvirtHost.DomainRecord domain = host.domain("proxy-1");
        assertThat(domain.state).isEqualTo(DomainState.RUNNING);
        assertThat(host.volumeNames(POOL)).containsExactlyInAnyOrder(BASE_VOLUME, overlay("proxy-1"),
                seed("proxy-1"));
        assertThat(host.volume(POOL, overlay("proxy-1")).capacity).as("diskSizeGb in GiB").isEqualTo(10L << 30);
        ParsedXml overlay = host.volume(POOL, overlay("proxy-1")).parsed();
        assertThat(overlay.text("/volume/target/format/@type")).isEqualTo("qcow2");
        assertThat(overlay.text("/volume/backingStore/path"))
                .isEqualTo("/var/lib/libvirt/egress-test/debian-12.base.qcow2");
        assertThat(overlay.text("/volume/backingStore/format/@type")).isEqualTo("qcow2");
        ParsedXml xml = domain.parsed();
        assertThat(xml.text("/domain/@type")).isEqualTo("qemu");
        assertThat(xml.text("/domain/name")).isEqualTo("proxy-1");
        assertThat(xml.text("/domain/memory")).isEqualTo("512");
        assertThat(xml.text("/domain/memory/@unit")).isEqualTo("MiB");
        assertThat(xml.text("/domain/vcpu")).isEqualTo("1");
        assertThat(xml.text("/domain/devices/interface/source/@bridge")).isEqualTo("br-test");
        assertThat(xml.text("/domain/devices/disk[@device='disk']/source/@file"))
                .isEqualTo("/var/lib/libvirt/egress-test/" + overlay("proxy-1"));
        assertThat(xml.text("/domain/devices/disk[@device='cdrom']/source/@file"))
                .isEqualTo("/var/lib/libvirt/egress-test/" + seed("proxy-1"));
        assertThat(xml.text("/domain/devices/channel/target/@name")).isEqualTo("org.qemu.guest_agent.0");
        String metadata = host.domainMetadata(host.lookupDomain("proxy-1").orElseThrow(), InstanceMetadata.NAMESPACE)
                .orElseThrow();
        assertThat(InstanceMetadata.parse(metadata)).as("the metadata, as libvirt hands it back")
                .isEqualTo(new InstanceMetadata("uid-proxy-1", TestProviderContext.NOW, Optional.of(EngineFixture.ENTRY),
                        "small", EngineFixture.IMAGE, EngineFixture.request("proxy-1").cloudInitSha256()));
        assertThat(fixture.images.ensures()).as("downloads of a cached image").isZero();
        assertThat(host.volume(POOL, BASE_VOLUME).content).isEqualTo(IMAGE_BYTES);
    }

    @Test
    void theSeedCarriesUserDataMetaDataAndTheDefaultVendorData() {
        fixture.cacheBaseImage();

        fixture.create("proxy-1");

        byte[] expected = NoCloudSeed.builder("proxy-1").userData(EngineFixture.request("proxy-1").cloudInit())
                .vendorData(NoCloudSeed.DEFAULT_VENDOR_DATA).build().toIsoImage(TestProviderContext.NOW);
        FakeLibvirtHost.VolumeRecord seed = host.volume(POOL, seed("proxy-1"));
        assertThat(seed.content).isEqualTo(expected);
        assertThat(seed.capacity).as("the seed volume is sized to the ISO").isEqualTo(expected.length);
        assertThat(seed.parsed().text("/volume/target/format/@type")).isEqualTo("raw");
    }

    @Test
    void firstCreateOfAnImageOnAHostHasTheStrategyMakeItsBaseAndLaterOnesReuseIt() {
        fixture.create("proxy-1");
        fixture.create("proxy-2");

        assertThat(fixture.images.ensures()).isEqualTo(1);
        assertThat(host.volume(POOL, BASE_VOLUME).content).isEqualTo(IMAGE_BYTES);
        assertThat(host.volume(POOL, overlay("proxy-2")).parsed().text("/volume/backingStore/path"))
                .endsWith("/debian-12.base.qcow2");
        assertThat(host.domain("proxy-1").state).isEqualTo(DomainState.RUNNING);
        assertThat(host.domain("proxy-2").state).isEqualTo(DomainState.RUNNING);
    }

    @Test
    void aRawImageBacksTheOverlayAsRawAndTheMachineTypeSizesTheDomain() {
        fixture.engine.create(Requests.request("proxy-1", new Placement("host-1", "large",
                EngineFixture.RAW_IMAGE)), Requests.deadline());

        ParsedXml overlay = host.volume(POOL, overlay("proxy-1")).parsed();
        assertThat(overlay.text("/volume/target/format/@type")).isEqualTo("qcow2");
        assertThat(overlay.text("/volume/backingStore/path"))
                .isEqualTo("/var/lib/libvirt/egress-test/alpine-raw.base.raw");
        assertThat(overlay.text("/volume/backingStore/format/@type")).isEqualTo("raw");
        ParsedXml domain = host.domain("proxy-1").parsed();
        assertThat(domain.text("/domain/memory")).isEqualTo("4096");
        assertThat(domain.text("/domain/vcpu")).isEqualTo("4");
    }

    @Test
    void anExistingRunningDomainIsLeftAsItIs() {
        fixture.cacheBaseImage();
        fixture.create("proxy-1");
        byte[] seedBefore = host.volume(POOL, seed("proxy-1")).content;
        host.resetCalls();

        String id = fixture.create("proxy-1");

        assertThat(id).isEqualTo("host-1/proxy-1");
        assertThat(host.callLog()).containsExactly("lookupDomain", "domainMetadata", "domainState");
        assertThat(host.volume(POOL, seed("proxy-1")).content).isSameAs(seedBefore);
    }

    @ParameterizedTest
    @EnumSource(value = DomainState.class, names = {"SHUTOFF", "CRASHED", "NO_STATE", "PM_SUSPENDED", "SHUTDOWN"})
    void anExistingDomainThatDoesNotRunIsOnlyStarted(DomainState state) {
        fixture.cacheBaseImage();
        fixture.create("proxy-1");
        host.domain("proxy-1").state = state;
        host.resetCalls();

        fixture.create("proxy-1");

        assertThat(host.callLog()).containsExactly("lookupDomain", "domainMetadata", "domainState", "startDomain");
        assertThat(host.domain("proxy-1").state).isEqualTo(DomainState.RUNNING);
    }

    @Test
    void aStartThatFindsTheDomainRunningAlreadyIsSuccess() {
        fixture.cacheBaseImage();
        fixture.create("proxy-1");
        host.domain("proxy-1").state = DomainState.PAUSED;

        fixture.create("proxy-1");

        assertThat(host.callCounts()).containsEntry("startDomain", 2);
        assertThat(host.domain("proxy-1").state).as("a paused domain stays paused").isEqualTo(DomainState.PAUSED);
    }

    @Test
    void anOverlayLeftByACrashedCreateIsReused() {
        fixture.cacheBaseImage();
        FakeLibvirtHost.VolumeRecord leftover =
                host.putVolume(POOL, overlay("proxy-1"), "written by the guest".getBytes(StandardCharsets.US_ASCII));

        fixture.create("proxy-1");

        assertThat(host.volume(POOL, overlay("proxy-1"))).isSameAs(leftover);
        assertThat(host.domain("proxy-1").state).isEqualTo(DomainState.RUNNING);
    }

    @Test
    void aHalfUploadedSeedIsReplacedByAWholeOne() {
        fixture.cacheBaseImage();
        host.putVolume(POOL, seed("proxy-1"), "CD001 cut off".getBytes(StandardCharsets.US_ASCII));

        fixture.create("proxy-1");

        byte[] seed = host.volume(POOL, seed("proxy-1")).content;
        assertThat(seed).hasSizeGreaterThan(32 * 1024);
        assertThat(new String(seed, 0x8001, 5, StandardCharsets.US_ASCII)).isEqualTo("CD001");
        assertThat(host.callCounts()).containsEntry("deleteVolume", 1);
    }

    @Test
    void aDomainDefinedButNotStartedByACrashedCreateIsStartedWithoutRebuildingTheSeed() {
        fixture.cacheBaseImage();
        host.failNext("startDomain", FakeLibvirtHost.error(LibvirtErrorCode.INTERNAL_ERROR, "qemu died"));
        assertThatThrownBy(() -> fixture.create("proxy-1")).isInstanceOf(ProviderException.class);
        byte[] seedBefore = host.volume(POOL, seed("proxy-1")).content;
        assertThat(host.domain("proxy-1").state).isEqualTo(DomainState.SHUTOFF);

        fixture.create("proxy-1");

        assertThat(host.domain("proxy-1").state).isEqualTo(DomainState.RUNNING);
        assertThat(host.volume(POOL, seed("proxy-1")).content).isSameAs(seedBefore);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "<x:tag xmlns:x='https://example.org/other'>another tool's</x:tag>"})
    void aDomainThisPlatformDidNotCreateIsPermanentAndLeftAlone(String metadata) {
        host.putDomain("proxy-1", DomainState.SHUTOFF, metadata.isEmpty() ? null : metadata);
        host.resetCalls();

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.operation()).isEqualTo(Operation.CREATE);
        assertThat(error.instanceId()).isEqualTo("host-1/proxy-1");
        assertThat(error.detail()).isEqualTo("a domain named 'proxy-1' exists on host 'host-1' that egress-proxies did"
                + " not create: remove or rename it, or choose another name");
        assertThat(host.callLog()).as("only looked at, never started").containsExactly("lookupDomain", "domainMetadata");
        assertThat(host.domain("proxy-1").state).isEqualTo(DomainState.SHUTOFF);
        assertThat(host.volumeNames(POOL)).as("nothing made for a domain that exists").isEmpty();
        assertThat(fixture.images.ensures()).isZero();
        assertThat(fixture.engine.listManaged(Requests.deadline())).as("listManaged, which never reports it")
                .isEmpty();
    }

    @Test
    void aNameAnotherEntrysDomainHoldsIsPermanentAndNeitherTheDomainNorItsVolumesAreTouched() {
        InstanceEngine<PresetBaseImages.Image> other = fixture.engineOfEntry(EngineFixture.OTHER_ENTRY);
        other.create(EngineFixture.request("proxy-1"), Requests.deadline());
        host.domain("proxy-1").state = DomainState.SHUTOFF;
        String domainXml = host.domain("proxy-1").xml;
        FakeLibvirtHost.VolumeRecord overlay = host.volume(POOL, InstanceVolumes.overlay(OTHER_ENTRY, "proxy-1"));
        FakeLibvirtHost.VolumeRecord seed = host.volume(POOL, InstanceVolumes.seed(OTHER_ENTRY, "proxy-1"));
        byte[] seedContent = seed.content;
        host.resetCalls();

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.operation()).isEqualTo(Operation.CREATE);
        assertThat(error.entry()).isEqualTo(EngineFixture.ENTRY);
        assertThat(error.instanceId()).isEqualTo("host-1/proxy-1");
        assertThat(error.detail()).isEqualTo("domain 'proxy-1' on host 'host-1' was created through provider entry"
                + " 'kvm2-test', not 'kvm-test', so it is not taken over through this entry: create it through entry"
                + " 'kvm2-test', or choose another name");
        assertThat(host.callLog()).as("only looked at, never started").containsExactly("lookupDomain", "domainMetadata");
        assertThat(host.domain("proxy-1").state).isEqualTo(DomainState.SHUTOFF);
        assertThat(host.domain("proxy-1").xml).isEqualTo(domainXml);
        assertThat(overlay).isNotNull();
        assertThat(host.volume(POOL, InstanceVolumes.overlay(OTHER_ENTRY, "proxy-1"))).isSameAs(overlay);
        assertThat(host.volume(POOL, InstanceVolumes.seed(OTHER_ENTRY, "proxy-1"))).isSameAs(seed);
        assertThat(seed.content).isSameAs(seedContent);
        assertThat(fixture.engine.listManaged(Requests.deadline())).isEmpty();
    }

    @Test
    void aNameADomainDefinedBeforeEntriesWereRecordedHoldsIsPermanentAndLeftAlone() {
        host.putDomain("proxy-1", DomainState.SHUTOFF, PlatformMetadata.withoutEntry("uid-proxy-1"));
        // Such domains were made when volumes were named after the instance alone.
        FakeLibvirtHost.VolumeRecord overlay = host.putVolume(POOL, "proxy-1.qcow2", new byte[10]);
        FakeLibvirtHost.VolumeRecord seed = host.putVolume(POOL, "proxy-1.seed.iso", new byte[10]);

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.detail()).contains("before domains recorded their provider entry", "it is not taken over",
                "choose another name, or if nothing uses it any more, remove it by hand");
        assertThat(host.domain("proxy-1").state).isEqualTo(DomainState.SHUTOFF);
        assertThat(host.volume(POOL, "proxy-1.qcow2")).isSameAs(overlay);
        assertThat(host.volume(POOL, "proxy-1.seed.iso")).isSameAs(seed);
    }

    @Test
    void theVolumesAnotherEntrysCrashedCreateLeftAreNeitherReusedNorReplaced() {
        fixture.cacheBaseImage();
        InstanceEngine<PresetBaseImages.Image> other = fixture.engineOfEntry(OTHER_ENTRY);
        host.failNext("defineDomain", FakeLibvirtHost.error(LibvirtErrorCode.INTERNAL_ERROR, "busy"));
        assertThat(catchProviderException(() -> other.create(EngineFixture.request("proxy-1"), Requests.deadline()))
                .kind()).isEqualTo(ErrorKind.TRANSIENT);
        Map<String, FakeLibvirtHost.VolumeRecord> othersLeftovers = fixture.volumes();
        othersLeftovers.remove(BASE_VOLUME);
        assertThat(othersLeftovers).as("the other entry's overlay and seed").hasSize(2);

        fixture.create("proxy-1");

        ParsedXml domain = host.domain("proxy-1").parsed();
        assertThat(List.of(domain.text("/domain/devices/disk[@device='disk']/source/@file"),
                domain.text("/domain/devices/disk[@device='cdrom']/source/@file")))
                .containsExactly("/var/lib/libvirt/egress-test/" + overlay("proxy-1"),
                        "/var/lib/libvirt/egress-test/" + seed("proxy-1"));
        othersLeftovers.forEach((name, volume) -> assertThat(host.volume(POOL, name)).as(name).isSameAs(volume));
        assertThat(host.volumeNames(POOL)).hasSize(5);
    }

    @Test
    void aDomainWhoseMetadataCannotBeReadIsPermanentAndLeftAlone() {
        host.putDomain("proxy-1", DomainState.SHUTOFF, "<ep:instance xmlns:ep='" + InstanceMetadata.NAMESPACE
                + "'><ep:uid>u</ep:uid></ep:instance>");

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.detail()).startsWith("domain 'proxy-1' on host 'host-1': ")
                .contains("it has no <created>", "virsh metadata");
        assertThat(host.domain("proxy-1").state).isEqualTo(DomainState.SHUTOFF);
        assertThat(host.volumeNames(POOL)).isEmpty();
    }

    @Test
    void aMissingPoolIsPermanentAndCreatesNothing() {
        host.removePool(POOL);

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.instanceId()).isEqualTo("host-1/proxy-1");
        assertThat(error.detail()).contains("storage pool 'egress-test' does not exist on host 'host-1'",
                "virsh pool-define-as");
        assertThat(host.domainNames()).isEmpty();
        assertThat(fixture.images.ensures()).isZero();
    }

    @Test
    void aDefineThatLibvirtRejectsLeavesVolumesTheNextCreateRepairs() {
        fixture.cacheBaseImage();
        host.failNext("defineDomain", FakeLibvirtHost.error(LibvirtErrorCode.INTERNAL_ERROR, "busy"));
        assertThat(catchProviderException(() -> fixture.create("proxy-1")).kind()).isEqualTo(ErrorKind.TRANSIENT);

        fixture.create("proxy-1");

        assertThat(host.domain("proxy-1").state).isEqualTo(DomainState.RUNNING);
        assertThat(host.volumeNames(POOL)).containsExactlyInAnyOrder(BASE_VOLUME, overlay("proxy-1"),
                seed("proxy-1"));
    }

    @Test
    void aUefiImageDefinesTheHostsLoaderAndNvramTemplateAndItsCpuMode() {
        try (EngineFixture uefi = EngineFixture.withHost(new HostSettings("host-1", "127.0.0.1", null, null, null,
                EngineFixture.POOL, "br0", "kvm", null, null, null, null))) {
            uefi.engine.create(Requests.request("proxy-1", new Placement("host-1", "small",
                    EngineFixture.UEFI_IMAGE)), Requests.deadline());

            ParsedXml xml = uefi.host().domain("proxy-1").parsed();
            assertThat(xml.text("/domain/os/loader")).isEqualTo("/usr/share/OVMF/OVMF_CODE_4M.fd");
            assertThat(xml.text("/domain/os/loader/@type")).isEqualTo("pflash");
            assertThat(xml.text("/domain/os/loader/@readonly")).isEqualTo("yes");
            assertThat(xml.text("/domain/os/nvram/@template")).isEqualTo("/usr/share/OVMF/OVMF_VARS_4M.fd");
            assertThat(xml.text("/domain/cpu/@mode")).isEqualTo("host-model");
        }
    }

    @Test
    void aBiosImageOnAQemuHostDefinesNoLoaderAndQemusDefaultCpu() {
        fixture.cacheBaseImage();

        fixture.create("proxy-1");

        ParsedXml xml = host.domain("proxy-1").parsed();
        assertThat(xml.count("/domain/os/loader | /domain/os/nvram | /domain/cpu")).isZero();
    }

    @Test
    void aNamedCpuModelIsDefinedAsACustomModel() {
        try (EngineFixture named = EngineFixture.withHost(new HostSettings("host-1", "127.0.0.1", null, null, null,
                EngineFixture.POOL, "br0", "kvm", "Skylake-Client", null, null, null))) {
            named.cacheBaseImage();

            named.create("proxy-1");

            ParsedXml xml = named.host().domain("proxy-1").parsed();
            assertThat(xml.text("/domain/@type")).isEqualTo("kvm");
            assertThat(xml.text("/domain/cpu/@mode")).isEqualTo("custom");
            assertThat(xml.text("/domain/cpu/model")).isEqualTo("Skylake-Client");
        }
    }

    @Test
    void theVendorDataOfTheEntryReplacesTheDefault() {
        // The fixture's entry uses the default; the seed builder is what applies the entry's value.
        Call call = new Call("e", Operation.CREATE, "x", Requests.deadline());
        byte[] custom = InstanceCreator.seed("proxy-1", "", "#cloud-config\n{}\n", fixture.context.clock(), call);
        byte[] standard = InstanceCreator.seed("proxy-1", "", NoCloudSeed.DEFAULT_VENDOR_DATA, fixture.context.clock(),
                call);

        assertThat(custom).isNotEqualTo(standard);
        assertThat(new String(custom, StandardCharsets.ISO_8859_1)).contains("#cloud-config\n{}\n");
    }
}

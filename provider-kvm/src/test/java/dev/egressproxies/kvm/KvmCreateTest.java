package dev.egressproxies.kvm;

import static dev.egressproxies.kvm.KvmFixture.IMAGE_BYTES;
import static dev.egressproxies.kvm.KvmFixture.POOL;
import static dev.egressproxies.kvm.common.testing.Requests.catchProviderException;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.DomainState;
import dev.egressproxies.kvm.common.testing.FakeLibvirtHost;
import dev.egressproxies.kvm.common.testing.InstanceVolumes;
import dev.egressproxies.kvm.common.testing.ParsedXml;
import dev.egressproxies.kvm.common.testing.Requests;
import dev.egressproxies.kvm.common.testing.TestBytes;
import dev.egressproxies.kvm.config.KvmHost;
import dev.egressproxies.kvm.config.KvmImage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the {@code kvm} backend adds to kvm-common's create (whose branches the instance engine's
 * tests cover): configured images only, downloaded into the pool on first use under
 * {@code KEY.SOURCE.base.FORMAT} with a completeness marker, and the host's firmware for every VM.
 */
class KvmCreateTest {
    private final KvmFixture fixture = KvmFixture.oneHost();
    private final FakeLibvirtHost host = fixture.host();

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void firstCreateOfAnImageOnAHostDownloadsItIntoThePool() {
        fixture.create("proxy-1");

        assertThat(fixture.server.gets(KvmFixture.IMAGE_PATH)).isEqualTo(1);
        FakeLibvirtHost.VolumeRecord base = host.volume(POOL, fixture.baseVolume);
        assertThat(base.content).isEqualTo(IMAGE_BYTES);
        assertThat(base.capacity).as("capacity from Content-Length").isEqualTo(IMAGE_BYTES.length);
        assertThat(host.callCounts()).containsEntry("refreshPool", 1);
        assertThat(host.volume(POOL, fixture.baseMarker)).as("completeness marker").isNotNull();
        assertThat(fixture.context.progressDescriptions())
                .containsExactly("downloading image debian-12 to host host-1 (" + IMAGE_BYTES.length + " bytes)");
        assertThat(fixture.context.progressBytes()).isEqualTo(IMAGE_BYTES.length);
        assertThat(host.domain("proxy-1").state).isEqualTo(DomainState.RUNNING);
        assertThat(host.volumeNames(POOL)).containsExactlyInAnyOrder(fixture.baseVolume, fixture.baseMarker,
                InstanceVolumes.overlay(KvmFixture.ENTRY, "proxy-1"),
                InstanceVolumes.seed(KvmFixture.ENTRY, "proxy-1"));
    }

    @Test
    void laterCreatesReuseTheCachedBaseImage() {
        fixture.create("proxy-1");

        fixture.create("proxy-2");

        assertThat(fixture.server.gets(KvmFixture.IMAGE_PATH)).isEqualTo(1);
        assertThat(host.volume(POOL, InstanceVolumes.overlay(KvmFixture.ENTRY, "proxy-2")).parsed()
                .text("/volume/backingStore/path"))
                .endsWith("/" + fixture.baseVolume);
    }

    @Test
    void anotherEntrysImageOfTheSameKeyFromAnotherUrlGetsABaseOfItsOwnAndTheFirstBaseStays() {
        byte[] otherBytes = TestBytes.pattern(4096 + 3);
        fixture.server.serve("/images/other.qcow2", otherBytes);
        fixture.create("proxy-1");
        KvmProvider other = fixture.providerWithImageAt(fixture.server.url("/images/other.qcow2"));

        other.create(KvmFixture.request("proxy-2"), Requests.deadline());

        String otherBase = BaseVolumeNames.base(KvmFixture.IMAGE, new KvmImage(
                fixture.server.url("/images/other.qcow2"), null));
        assertThat(otherBase).isNotEqualTo(fixture.baseVolume).startsWith("debian-12.");
        assertThat(fixture.server.gets("/images/other.qcow2")).as("the other URL was fetched").isEqualTo(1);
        assertThat(host.volume(POOL, otherBase).content).isEqualTo(otherBytes);
        assertThat(host.volume(POOL, fixture.baseVolume).content).isEqualTo(IMAGE_BYTES);
        assertThat(backingPath("proxy-1")).endsWith("/" + fixture.baseVolume);
        assertThat(backingPath("proxy-2")).endsWith("/" + otherBase);
    }

    @Test
    void entriesWhoseImagesHaveOneSourceShareOneBase() {
        fixture.create("proxy-1");
        KvmProvider same = fixture.providerWithImageAt(fixture.server.url(KvmFixture.IMAGE_PATH));

        same.create(KvmFixture.request("proxy-2"), Requests.deadline());

        assertThat(fixture.server.gets(KvmFixture.IMAGE_PATH)).isEqualTo(1);
        assertThat(backingPath("proxy-2")).isEqualTo(backingPath("proxy-1"));
    }

    private String backingPath(String instance) {
        return host.volume(POOL, InstanceVolumes.overlay(KvmFixture.ENTRY, instance)).parsed()
                .text("/volume/backingStore/path");
    }

    @Test
    void aCachedBaseImageIsNotDownloadedAgain() {
        fixture.cacheBaseImage();

        fixture.create("proxy-1");

        assertThat(fixture.server.gets(KvmFixture.IMAGE_PATH)).isZero();
        assertThat(host.volume(POOL, InstanceVolumes.overlay(KvmFixture.ENTRY, "proxy-1")).parsed()
                .text("/volume/backingStore/path"))
                .isEqualTo("/var/lib/libvirt/egress-test/" + fixture.baseVolume);
    }

    @Test
    void aRawImageIsCachedUnderItsOwnNameAndBacksTheOverlayAsRaw() {
        fixture.provider.create(Requests.request("proxy-1", new Placement("host-1", "large", KvmFixture.RAW_IMAGE)),
                Requests.deadline());

        assertThat(host.volumeNames(POOL)).contains(fixture.baseVolume(KvmFixture.RAW_IMAGE), fixture.baseVolume(KvmFixture.RAW_IMAGE) + ".complete");
        ParsedXml overlay = host.volume(POOL, InstanceVolumes.overlay(KvmFixture.ENTRY, "proxy-1")).parsed();
        assertThat(overlay.text("/volume/backingStore/path"))
                .isEqualTo("/var/lib/libvirt/egress-test/" + fixture.baseVolume(KvmFixture.RAW_IMAGE));
        assertThat(overlay.text("/volume/backingStore/format/@type")).isEqualTo("raw");
    }

    @Test
    void anImageThatIsNotConfiguredNamesTheConfiguredOnes() {
        ProviderException error = catchProviderException(() -> fixture.provider.create(
                Requests.request("proxy-1", new Placement("host-1", "small", "windows")), Requests.deadline()));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.operation()).isEqualTo(Operation.CREATE);
        assertThat(error.instanceId()).isEqualTo("proxy-1");
        assertThat(error.detail()).isEqualTo("placement.image 'windows' is not configured: use one of [debian-12,"
                + " alpine-raw], or add it to images of provider entry 'kvm-test'");
        assertThat(fixture.connections.callCount()).isZero();
    }

    @Test
    void aUefiHostBootsEveryVmWithUefi() {
        try (KvmFixture uefi = KvmFixture.withHost(new KvmHost("host-1", "127.0.0.1", null, null, null,
                KvmFixture.POOL, "br0", "kvm", null, "uefi", null, null, null))) {
            uefi.cacheBaseImage();

            uefi.create("proxy-1");

            ParsedXml xml = uefi.host().domain("proxy-1").parsed();
            assertThat(xml.text("/domain/os/loader")).isEqualTo("/usr/share/OVMF/OVMF_CODE_4M.fd");
            assertThat(xml.text("/domain/os/nvram/@template")).isEqualTo("/usr/share/OVMF/OVMF_VARS_4M.fd");
        }
    }

    @Test
    void aBiosHostBootsEveryVmWithBios() {
        fixture.cacheBaseImage();

        fixture.create("proxy-1");

        assertThat(host.domain("proxy-1").parsed().count("/domain/os/loader | /domain/os/nvram")).isZero();
    }
}

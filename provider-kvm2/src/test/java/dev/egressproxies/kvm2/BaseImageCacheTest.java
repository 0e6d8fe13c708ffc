package dev.egressproxies.kvm2;

import static dev.egressproxies.kvm.common.testing.Requests.catchProviderException;
import static dev.egressproxies.kvm2.Kvm2Fixture.IMAGE_BYTES;
import static dev.egressproxies.kvm2.Kvm2Fixture.IMAGE_PATH;
import static dev.egressproxies.kvm2.Kvm2Fixture.IMAGE_SHA256;
import static dev.egressproxies.kvm2.Kvm2Fixture.POOL;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.DomainState;
import dev.egressproxies.kvm.common.testing.FakeLibvirtHost;
import dev.egressproxies.kvm.common.testing.InstanceVolumes;
import dev.egressproxies.kvm.common.testing.Requests;
import dev.egressproxies.kvm2.config.CatalogueImage;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Every state a host's pool can hold of an image's base, and what a create makes of it: a complete
 * base is used as it is; a base without marker (a cut-off upload), a marker without base and a
 * marker without a digest (debris) are removed and the image fetched again; a marker with another
 * digest than the configured one is refused and left alone.
 */
class BaseImageCacheTest {
    private final Kvm2Fixture fixture = Kvm2Fixture.standard();
    private final FakeLibvirtHost host = fixture.host;

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void withNoBaseTheImageIsFetchedAndTheMarkerHoldsItsDigest() {
        String id = fixture.create("proxy-1");

        assertThat(id).isEqualTo("host-1/proxy-1");
        assertThat(fixture.server.gets(IMAGE_PATH)).isEqualTo(1);
        assertThat(fixture.volumes()).containsExactlyInAnyOrder(fixture.baseVolume, fixture.marker,
                InstanceVolumes.overlay(Kvm2Fixture.ENTRY, "proxy-1"),
                InstanceVolumes.seed(Kvm2Fixture.ENTRY, "proxy-1"));
        FakeLibvirtHost.VolumeRecord base = host.volume(POOL, fixture.baseVolume);
        assertThat(base.content).isEqualTo(IMAGE_BYTES);
        assertThat(base.capacity).as("a raw volume of the published length").isEqualTo(IMAGE_BYTES.length);
        assertThat(base.parsed().text("/volume/target/format/@type")).isEqualTo("raw");
        assertThat(new String(host.volume(POOL, fixture.marker).content, StandardCharsets.US_ASCII))
                .isEqualTo(fixture.markerText(Kvm2Fixture.IMAGE, IMAGE_SHA256));
        assertThat(host.volume(POOL, InstanceVolumes.overlay(Kvm2Fixture.ENTRY, "proxy-1")).parsed()
                .text("/volume/backingStore/format/@type"))
                .as("the overlay names the image's format").isEqualTo("qcow2");
        assertThat(host.domain("proxy-1").state).isEqualTo(DomainState.RUNNING);
        assertThat(host.domain("proxy-1").parsed().count("/domain/os/loader")).as("a BIOS image").isZero();
    }

    @Test
    void theMarkerIsWrittenLastAfterThePoolWasRefreshed() {
        fixture.create("proxy-1");

        assertThat(host.callLog()).containsSubsequence("uploadVolume", "refreshPool", "createVolume", "uploadVolume",
                "lookupVolume", "createVolume");
        int refresh = host.callLog().indexOf("refreshPool");
        assertThat(host.callLog().subList(0, refresh)).as("before the refresh: the fetch lease and the base")
                .filteredOn("createVolume"::equals).hasSize(2);
    }

    @Test
    void aCompleteBaseIsUsedWithoutFetching() {
        fixture.cacheBaseImage();

        fixture.create("proxy-1");

        assertThat(fixture.server.gets(IMAGE_PATH)).isZero();
        assertThat(fixture.server.heads(IMAGE_PATH)).as("no size probe for a cached image").isZero();
        assertThat(host.callCounts()).containsEntry("createVolume", 2);
        assertThat(host.volume(POOL, InstanceVolumes.overlay(Kvm2Fixture.ENTRY, "proxy-1")).parsed()
                .text("/volume/backingStore/path"))
                .isEqualTo("/var/lib/libvirt/egress-test/" + fixture.baseVolume);
    }

    @Test
    void aBaseWithoutMarkerIsACutOffUploadAndIsFetchedAgain() {
        host.putVolume(POOL, fixture.baseVolume, "the first 7 bytes".getBytes(StandardCharsets.US_ASCII));

        fixture.create("proxy-1");

        assertThat(fixture.server.gets(IMAGE_PATH)).isEqualTo(1);
        assertThat(host.volume(POOL, fixture.baseVolume).content).isEqualTo(IMAGE_BYTES);
        assertThat(host.volume(POOL, fixture.marker)).isNotNull();
    }

    @Test
    void aMarkerWithoutBaseIsDebrisAndIsRemovedBeforeTheFetch() {
        host.putVolume(POOL, fixture.marker, IMAGE_SHA256.getBytes(StandardCharsets.US_ASCII));

        fixture.create("proxy-1");

        assertThat(fixture.server.gets(IMAGE_PATH)).isEqualTo(1);
        assertThat(host.volume(POOL, fixture.baseVolume).content).isEqualTo(IMAGE_BYTES);
        assertThat(new String(host.volume(POOL, fixture.marker).content, StandardCharsets.US_ASCII))
                .isEqualTo(fixture.markerText(Kvm2Fixture.IMAGE, IMAGE_SHA256));
        assertThat(host.callCounts()).containsEntry("deleteVolume", 2); // the marker, then the fetch lease
    }

    @Test
    void aMarkerWithoutADigestIsDebrisAndGoesWithItsBase() {
        host.putVolume(POOL, fixture.baseVolume, IMAGE_BYTES);
        host.putVolume(POOL, fixture.marker, new byte[64]);

        fixture.create("proxy-1");

        assertThat(fixture.server.gets(IMAGE_PATH)).isEqualTo(1);
        assertThat(host.callCounts()).containsEntry("deleteVolume", 3); // marker, base, then the fetch lease
        assertThat(new String(host.volume(POOL, fixture.marker).content, StandardCharsets.US_ASCII))
                .isEqualTo(fixture.markerText(Kvm2Fixture.IMAGE, IMAGE_SHA256));
    }

    @Test
    void aMarkerIsReadWithASmallCap() {
        host.putVolume(POOL, fixture.baseVolume, IMAGE_BYTES);
        byte[] huge = new byte[1 << 20];
        System.arraycopy(IMAGE_SHA256.getBytes(StandardCharsets.US_ASCII), 0, huge, 0, 64);
        huge[100] = 'x';
        host.putVolume(POOL, fixture.marker, huge);

        fixture.create("proxy-1");

        assertThat(host.callLog()).contains("downloadVolume");
        assertThat(fixture.server.gets(IMAGE_PATH)).as("1 KiB read, holding more than a digest: debris").isEqualTo(1);
    }

    @Test
    void aDigestPaddedWithZerosOrANewlineCountsAsTheDigest() {
        host.putVolume(POOL, fixture.baseVolume, IMAGE_BYTES);
        host.putVolume(POOL, fixture.marker, (IMAGE_SHA256.toUpperCase() + "\n\0\0").getBytes(StandardCharsets.US_ASCII));

        fixture.create("proxy-1");

        assertThat(fixture.server.gets(IMAGE_PATH)).isZero();
    }

    @Test
    void aMarkerWithAnotherDigestIsRefusedWithHowToMoveOnAndNothingIsTouched() {
        String cached = "ab".repeat(32);
        host.putVolume(POOL, fixture.baseVolume, "an older image".getBytes(StandardCharsets.US_ASCII));
        host.putVolume(POOL, fixture.marker, cached.getBytes(StandardCharsets.US_ASCII));
        host.resetCalls();

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.instanceId()).isEqualTo("host-1/proxy-1");
        assertThat(error.detail()).contains("base image volume " + fixture.baseVolume + " on host 'host-1'",
                "sha256 " + cached, "sha256 " + IMAGE_SHA256 + " is configured", "overlays",
                "pin the cached digest again", "virsh vol-delete --pool egress-test " + fixture.baseVolume,
                "virsh vol-delete --pool egress-test " + fixture.marker);
        assertThat(fixture.volumes()).containsExactlyInAnyOrder(fixture.baseVolume, fixture.marker);
        assertThat(host.callCounts()).doesNotContainKeys("createVolume", "deleteVolume");
        assertThat(fixture.server.gets(IMAGE_PATH) + fixture.server.heads(IMAGE_PATH)).isZero();
    }

    @Test
    void withoutAConfiguredDigestAnyCachedDigestIsAccepted() {
        try (Kvm2Fixture unpinned = Kvm2Fixture.with(settings -> settings.withImage("plain",
                new CatalogueImage(settings.images().get(Kvm2Fixture.IMAGE).url(), null, null, null, null, null, null)))) {
            String volume = unpinned.baseVolume("plain");
            unpinned.host.putVolume(POOL, volume, IMAGE_BYTES);
            unpinned.host.putVolume(POOL, volume + ".sha256", "cd".repeat(32).getBytes(StandardCharsets.US_ASCII));

            unpinned.provider.create(Kvm2Fixture.request("proxy-1", "plain"), Requests.deadline());

            assertThat(unpinned.server.gets(IMAGE_PATH)).isZero();
            assertThat(unpinned.host.domain("proxy-1").parsed().text("/domain/os/loader"))
                    .as("firmware defaults to UEFI").isEqualTo("/usr/share/OVMF/OVMF_CODE_4M.fd");
        }
    }

    @Test
    void twoEntriesOnOneHostNeverShareABase() {
        fixture.create("proxy-1");

        try (Kvm2Provider other = new Kvm2Provider("kvm2-other", fixture.config, fixture.context, fixture.dialer)) {
            other.create(Kvm2Fixture.request("proxy-2", Kvm2Fixture.IMAGE), Requests.deadline());
        }

        String otherBase = BaseVolumeNames.base("kvm2-other", Kvm2Fixture.IMAGE,
                fixture.config.images().get(Kvm2Fixture.IMAGE).source());
        assertThat(otherBase).startsWith("kvm2-other+debian-12.");
        assertThat(fixture.volumes()).contains(fixture.baseVolume, fixture.marker, otherBase, otherBase + ".sha256");
        assertThat(fixture.server.gets(IMAGE_PATH)).isEqualTo(2);
        assertThat(host.volume(POOL, InstanceVolumes.overlay("kvm2-other", "proxy-2")).parsed()
                .text("/volume/backingStore/path")).endsWith("/" + otherBase);
    }
}

package dev.egressproxies.kvm2;

import static dev.egressproxies.kvm.common.testing.Requests.catchProviderException;
import static dev.egressproxies.kvm2.Kvm2Fixture.IMAGE_BYTES;
import static dev.egressproxies.kvm2.Kvm2Fixture.IMAGE_PATH;
import static dev.egressproxies.kvm2.Kvm2Fixture.IMAGE_SHA256;
import static dev.egressproxies.kvm2.Kvm2Fixture.POOL;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.PreflightCheck;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.instance.PoolLease;
import dev.egressproxies.kvm.common.instance.PoolLeases;
import dev.egressproxies.kvm.common.instance.LeaseHolder;
import dev.egressproxies.kvm.common.testing.FakeLibvirtHost;
import dev.egressproxies.kvm.common.testing.InstanceVolumes;
import dev.egressproxies.kvm.common.testing.Requests;
import dev.egressproxies.kvm.common.testing.TestBytes;
import dev.egressproxies.kvm2.config.CatalogueImage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A base is the bytes of one source: an unpinned image whose URL changed is fetched into a new
 * base while the old one stays for the VMs on it; bases named before sources were are never
 * reused, and reported once unused; a marker that records another source is not trusted without a
 * pinned digest; a stale fetch lease next to a complete base goes with the next create.
 */
class ImageIdentityTest {
    private static final String KEY = "plain";
    private static final String MOVED_PATH = "/images/debian-12-moved.qcow2";
    private static final byte[] MOVED_BYTES = TestBytes.pattern(64 * 1024 + 5);

    private final Kvm2Fixture fixture = Kvm2Fixture.with(settings -> settings.withImage(KEY,
            new CatalogueImage(settings.images().get(Kvm2Fixture.IMAGE).url(), null, null, null, null, null, "bios")));
    private final FakeLibvirtHost host = fixture.host;

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void anUnpinnedImageWhoseUrlChangedIsFetchedIntoANewBaseAndTheOldBaseStaysForItsVms() {
        fixture.server.serve(MOVED_PATH, MOVED_BYTES);
        fixture.provider.create(Kvm2Fixture.request("proxy-1", KEY), Requests.deadline());
        String oldBase = fixture.baseVolume(KEY);

        try (Kvm2Provider moved = fixture.providerWithImage(KEY, new CatalogueImage(fixture.server.url(MOVED_PATH),
                null, null, null, null, null, "bios"))) {
            moved.create(Kvm2Fixture.request("proxy-2", KEY), Requests.deadline());
        }

        String newBase = BaseVolumeNames.base(Kvm2Fixture.ENTRY, KEY,
                new CatalogueImage(fixture.server.url(MOVED_PATH), null, null, null, null, null, "bios").source());
        assertThat(newBase).isNotEqualTo(oldBase).startsWith("kvm2-test+plain.");
        assertThat(fixture.server.gets(MOVED_PATH)).isEqualTo(1);
        assertThat(host.volume(POOL, newBase).content).isEqualTo(MOVED_BYTES);
        assertThat(host.volume(POOL, oldBase).content).isEqualTo(IMAGE_BYTES);
        assertThat(backingPath("proxy-1")).endsWith("/" + oldBase);
        assertThat(backingPath("proxy-2")).endsWith("/" + newBase);
        assertThat(new String(host.volume(POOL, newBase + ".sha256").content, StandardCharsets.US_ASCII))
                .startsWith(TestBytes.sha256(MOVED_BYTES) + "\nsource=").contains("http://127.0.0.1:")
                .doesNotContain(MOVED_PATH);
    }

    @Test
    void aBaseNamedBeforeSourcesWereIsNotReusedAndIsReportedOnceNothingBacksOnIt() {
        String legacy = "kvm2-test+plain.base.qcow2";
        host.putVolume(POOL, legacy, "bytes of some earlier URL".getBytes(StandardCharsets.US_ASCII));
        host.putVolume(POOL, legacy + ".sha256", "cd".repeat(32).getBytes(StandardCharsets.US_ASCII));

        fixture.provider.create(Kvm2Fixture.request("proxy-1", KEY), Requests.deadline());

        assertThat(fixture.server.gets(IMAGE_PATH)).isEqualTo(1);
        assertThat(backingPath("proxy-1")).endsWith("/" + fixture.baseVolume(KEY));
        PreflightCheck unused = fixture.provider.preflight(Requests.deadline()).stream()
                .filter(check -> check.name().equals("unused base images in pool egress-test on host host-1"))
                .findFirst().orElseThrow();
        assertThat(unused.warning()).isTrue();
        assertThat(unused.detail()).contains("1 of 2 cached base images", ": " + legacy + ".",
                "'egressctl images prune --provider ")
                .doesNotContain(fixture.baseVolume(KEY) + ",");
        assertThat(fixture.volumes()).contains(legacy, legacy + ".sha256");
    }

    @Test
    void aMarkerRecordingAnotherSourceIsRefusedForAnUnpinnedImageAndTouchesNothing() {
        String base = fixture.baseVolume(KEY);
        host.putVolume(POOL, base, IMAGE_BYTES);
        host.putVolume(POOL, base + ".sha256", (IMAGE_SHA256 + "\nsource=" + "ef".repeat(32) + " elsewhere\n")
                .getBytes(StandardCharsets.US_ASCII));

        ProviderException error = catchProviderException(() -> fixture.provider.create(
                Kvm2Fixture.request("proxy-1", KEY), Requests.deadline()));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.detail()).contains("fetched from another source", "ef".repeat(32),
                "virsh vol-delete --pool egress-test " + base);
        assertThat(fixture.volumes()).containsExactlyInAnyOrder(base, base + ".sha256");
    }

    @Test
    void aMarkerRecordingAnotherSourceIsUsedWhenItsDigestIsThePinnedOne() {
        host.putVolume(POOL, fixture.baseVolume, IMAGE_BYTES);
        host.putVolume(POOL, fixture.marker, (IMAGE_SHA256 + "\nsource=" + "ef".repeat(32) + " elsewhere\n")
                .getBytes(StandardCharsets.US_ASCII));

        fixture.create("proxy-1");

        assertThat(fixture.server.gets(IMAGE_PATH)).isZero();
    }

    @Test
    void aStaleLeaseNextToACompleteBaseIsRemovedByTheNextCreate() {
        fixture.cacheBaseImage();
        String lease = PoolLeases.volumeName(fixture.baseVolume);
        host.putVolume(POOL, lease, new PoolLease("feedface", new LeaseHolder("other-machine", "boot-1", 4242, 1000),
                Instant.now().minus(Duration.ofMinutes(1))).bytes());

        fixture.create("proxy-1");

        assertThat(fixture.volumes()).contains(fixture.baseVolume, fixture.marker).doesNotContain(lease);
    }

    private String backingPath(String instance) {
        return host.volume(POOL, InstanceVolumes.overlay(Kvm2Fixture.ENTRY, instance)).parsed()
                .text("/volume/backingStore/path");
    }
}

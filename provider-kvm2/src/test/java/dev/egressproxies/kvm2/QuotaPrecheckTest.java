package dev.egressproxies.kvm2;

import static dev.egressproxies.kvm.common.testing.Requests.catchProviderException;
import dev.egressproxies.kvm.common.instance.PoolLeases;
import static dev.egressproxies.kvm2.Kvm2Fixture.IMAGE_BYTES;
import static dev.egressproxies.kvm2.Kvm2Fixture.IMAGE_PATH;
import static dev.egressproxies.kvm2.Kvm2Fixture.POOL;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.ProviderException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The quota precheck before anything is written: the image when it is not cached (its published
 * size, from a HEAD), the overlay at its full size and the seed reserve must fit into what the pool
 * has available; a pool that does not run is a configuration error.
 */
class QuotaPrecheckTest {
    private static final long OVERLAY = 10L << 30;

    private final Kvm2Fixture fixture = Kvm2Fixture.standard();

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void anUncachedImageThatDoesNotFitIsQuotaExceededBeforeTheBaseIsWritten() {
        fixture.host.withPoolCapacity(POOL, OVERLAY + PoolSpace.SEED_RESERVE_BYTES + IMAGE_BYTES.length - 1);

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.kind()).isEqualTo(ErrorKind.QUOTA_EXCEEDED);
        assertThat(error.detail()).contains("storage pool 'egress-test' on host 'host-1' has",
                "needs " + (OVERLAY + PoolSpace.SEED_RESERVE_BYTES + IMAGE_BYTES.length),
                "image " + IMAGE_BYTES.length, "free space in the pool");
        // Only the fetch lease was written, and removed again.
        assertThat(fixture.host.callCounts()).containsEntry("createVolume", 1).containsEntry("uploadVolume", 1)
                .containsEntry("deleteVolume", 1);
        assertThat(fixture.volumes()).isEmpty();
        assertThat(fixture.server.heads(IMAGE_PATH)).as("the size came from a HEAD").isEqualTo(1);
        assertThat(fixture.server.gets(IMAGE_PATH)).isZero();
    }

    @Test
    void anUncachedImageThatJustFitsIsFetched() {
        // The fetch lease takes its volume's capacity while the space is checked.
        fixture.host.withPoolCapacity(POOL, OVERLAY + PoolSpace.SEED_RESERVE_BYTES + IMAGE_BYTES.length
                + PoolLeases.VOLUME_BYTES);

        fixture.create("proxy-1");

        assertThat(fixture.server.gets(IMAGE_PATH)).isEqualTo(1);
    }

    @Test
    void aCachedImageCountsNothingButTheOverlayMustStillFit() {
        fixture.cacheBaseImage();
        fixture.host.withPoolCapacity(POOL, 2L * IMAGE_BYTES.length + 64 + OVERLAY);

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.kind()).isEqualTo(ErrorKind.QUOTA_EXCEEDED);
        assertThat(error.detail()).contains("image 0,");
        assertThat(fixture.host.callCounts()).doesNotContainKey("createVolume");
    }

    @Test
    void aServerThatRefusesHeadIsAskedWithAGetWhoseBodyIsNotRead() {
        fixture.server.serveWithoutHead(IMAGE_PATH, IMAGE_BYTES);
        fixture.host.withPoolCapacity(POOL, OVERLAY);

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.kind()).isEqualTo(ErrorKind.QUOTA_EXCEEDED);
        assertThat(fixture.server.gets(IMAGE_PATH)).isEqualTo(1);
        assertThat(fixture.host.callCounts()).as("only the fetch lease").containsEntry("createVolume", 1);
    }

    @Test
    void aPoolThatDoesNotRunIsPermanentAndNothingIsWritten() {
        fixture.host.stopPool(POOL);

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.detail()).contains("storage pool 'egress-test' exists on host 'host-1' but is not running",
                "virsh pool-start egress-test");
        assertThat(fixture.host.callCounts()).doesNotContainKeys("createVolume", "deleteVolume");
        assertThat(fixture.server.gets(IMAGE_PATH) + fixture.server.heads(IMAGE_PATH)).isZero();
    }

    @Test
    void aMissingPoolIsPermanent() {
        fixture.host.removePool(POOL);

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.detail()).contains("does not exist on host 'host-1'");
    }
}

package dev.egressproxies.kvm2;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.PoolInfo;

/**
 * The quota precheck, made before anything is written: what one create commits to the pool (the
 * image when it is not cached yet, the overlay at its full size, and a reserve for the seed ISO)
 * must fit in what the pool has available, or the create is QUOTA_EXCEEDED and the caller retries
 * later instead of failing halfway through a volume creation.
 *
 * <p>The image's size is the published file's: a compressed image grows when it is decompressed,
 * so for those the precheck is a lower bound.
 */
final class PoolSpace {
    /** What the precheck sets aside for the seed ISO next to the image and the overlay. */
    static final long SEED_RESERVE_BYTES = 16L << 20;

    private final long overlayBytes;

    /** A precheck for overlays of {@code diskSizeGb} GiB. */
    PoolSpace(int diskSizeGb) {
        this.overlayBytes = (long) diskSizeGb << 30;
    }

    /**
     * Checks that {@code imageBytes} (0 when the image is cached), the overlay and the seed reserve
     * fit into the pool.
     *
     * @throws dev.egressproxies.api.ProviderException QUOTA_EXCEEDED when they do not
     */
    void require(PoolInfo pool, long imageBytes, HostSettings host, Call call) {
        long needed = Math.max(imageBytes, 0) + overlayBytes + SEED_RESERVE_BYTES;
        if (pool.availableBytes() < needed) {
            throw call.failure(ErrorKind.QUOTA_EXCEEDED, "storage pool '" + host.pool() + "' on host '" + host.name()
                    + "' has " + pool.availableBytes() + " bytes available, but this create needs " + needed
                    + " (image " + Math.max(imageBytes, 0) + ", disk " + overlayBytes + ", seed reserve "
                    + SEED_RESERVE_BYTES + "); free space in the pool, use a smaller diskSizeGb or another host,"
                    + " then retry", null);
        }
    }
}

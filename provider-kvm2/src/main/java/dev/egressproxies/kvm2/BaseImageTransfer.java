package dev.egressproxies.kvm2;

import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.image.HostImageFetcher;
import dev.egressproxies.kvm.common.image.ImageFetchException;
import dev.egressproxies.kvm.common.image.ImageFetcher.FetchResult;
import dev.egressproxies.kvm.common.image.ImageFetcher;
import dev.egressproxies.kvm.common.instance.BaseImageDiscard;
import dev.egressproxies.kvm.common.instance.BaseVolumeFetch;
import dev.egressproxies.kvm.common.instance.HostPool;
import dev.egressproxies.kvm.common.instance.HostSideFetch;
import dev.egressproxies.kvm.common.instance.ImageFailures;
import dev.egressproxies.kvm.common.instance.Pools;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StoragePool;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StorageVolume;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * One fetch of an image into a new base volume: HTTP GET streamed (decompressed, counted and
 * hashed by kvm-common's {@link ImageFetcher}) into a volume upload ({@link BaseVolumeFetch}),
 * within the transfer budget.
 *
 * <p>The upload runs over a connection of its own, dialled for this transfer and closed after it:
 * a call whose deadline passes has its connection cut, and a long upload must not die because a
 * poll for another instance was cancelled on the pooled connection (nor the pooled connection be
 * cut because this transfer ran out of time). It is dialled ahead, while the size probe and the
 * lease run, which hides its SSH handshake.
 *
 * <p>An image fetched on the host ({@code fetch: host}) takes the same path with {@link
 * HostSideFetch} in place of the upload: the dedicated connection's SSH session runs the host's
 * download, and its deadline ends that download there.
 *
 * <p>Every failure after the volume was created removes it, best effort, once the dedicated
 * connection is closed, so libvirtd has let go of the stream.
 */
final class BaseImageTransfer {
    private final BaseVolumeFetch fetch;
    private final HostSideFetch hostSide;
    private final Supplier<HostPool> dedicatedConnections;
    private final Duration transferBudget;
    private final BaseImageDiscard discard;

    BaseImageTransfer(ImageFetcher fetcher, HostImageFetcher hostFetcher, Supplier<HostPool> dedicatedConnections,
                      Duration transferBudget, BaseImageDiscard discard) {
        this.fetch = new BaseVolumeFetch(fetcher);
        this.hostSide = new HostSideFetch(hostFetcher);
        this.dedicatedConnections = dedicatedConnections;
        this.transferBudget = transferBudget;
        this.discard = discard;
    }

    /** A connection of its own to {@code host}, being dialled; the caller closes it. */
    HostPool dialAhead(HostSettings host, Call call) {
        HostPool dedicated = dedicatedConnections.get();
        dedicated.dialAhead(host, call);
        return dedicated;
    }

    /**
     * Fetches the image into its base volume on {@code host}, which must not exist, over
     * {@code dedicated} (from {@link #dialAhead}), which is closed when this returns.
     *
     * @return what was fetched; the base volume holds the image, complete but not yet marked
     * @throws dev.egressproxies.api.ProviderException classified by the contract; the base volume is
     *                                                 gone (or left for the next attempt to remove)
     */
    FetchResult fetch(HostPool dedicated, HostSettings host, Kvm2Image image, Call call) {
        Call transfer = call.withDeadline(call.deadline().within(transferBudget));
        AtomicReference<StorageVolume> created = new AtomicReference<>();
        try {
            if (image.onHost()) {
                return onHost(dedicated, host, image, transfer, created);
            }
            return dedicated.call(host, transfer,
                    libvirt -> upload(libvirt, host, image, transfer, created));
        } catch (RuntimeException failure) {
            dedicated.close();
            if (created.get() != null) {
                discard.discard(host, image.volume(), call, failure);
            }
            throw failure;
        } finally {
            dedicated.close();
        }
    }

    /** The host downloads the image into the base volume's file; the SSH session is the dedicated connection's. */
    private FetchResult onHost(HostPool dedicated, HostSettings host, Kvm2Image image, Call transfer,
                               AtomicReference<StorageVolume> created) {
        try {
            return hostSide.fetch(dedicated, host, image.volume(), image.source(), transfer, created);
        } catch (ImageFetchException failure) {
            throw ImageFailures.translate(failure, transfer, image.subject());
        }
    }

    private FetchResult upload(LibvirtHost libvirt, HostSettings host, Kvm2Image image, Call transfer,
                               AtomicReference<StorageVolume> created) {
        StoragePool pool = Pools.require(libvirt, host, transfer);
        String description = "downloading image " + image.label() + " to host " + host.name();
        try {
            return fetch.fetch(libvirt, pool, host, image.volume(), image.source(), description, transfer, created);
        } catch (ImageFetchException failure) {
            // Turned into the contract's error here: the pool takes any other exception for a broken link.
            throw ImageFailures.translate(failure, transfer, image.subject());
        }
    }
}

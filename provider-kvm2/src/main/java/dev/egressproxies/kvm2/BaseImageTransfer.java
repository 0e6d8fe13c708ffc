package dev.egressproxies.kvm2;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.host.HostConnections;
import dev.egressproxies.kvm.common.image.FetchResult;
import dev.egressproxies.kvm.common.image.ImageContent;
import dev.egressproxies.kvm.common.image.ImageFetchException;
import dev.egressproxies.kvm.common.image.ImageFetcher;
import dev.egressproxies.kvm.common.instance.Call;
import dev.egressproxies.kvm.common.instance.HostCaller;
import dev.egressproxies.kvm.common.instance.LibvirtSteps;
import dev.egressproxies.kvm.common.instance.Pools;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrorCode;
import dev.egressproxies.kvm.common.libvirt.LibvirtException;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import dev.egressproxies.kvm.common.libvirt.StoragePool;
import dev.egressproxies.kvm.common.libvirt.StorageVolume;
import dev.egressproxies.kvm.common.xml.VolumeXml;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * One fetch of an image into a new base volume: HTTP GET streamed (decompressed, counted and
 * hashed by kvm-common's {@link ImageFetcher}) into a volume upload, within the transfer budget.
 *
 * <p>The upload runs over a connection of its own, dialled for this transfer and closed after it:
 * a call whose deadline passes has its connection cut, and a long upload must not die because a
 * poll for another instance was cancelled on the pooled connection (nor the pooled connection be
 * cut because this transfer ran out of time).
 *
 * <p>The base volume is a raw volume of the image's length (of one byte while the decompressed
 * length is not known; the upload then grows it to the image's end): the upload writes the image
 * file's bytes as they are, whatever its format, and the pool refresh that follows makes libvirt
 * read the file's real format and size. Every failure after the volume was created removes it, best effort, once the
 * dedicated connection is closed, so libvirtd has let go of the stream.
 */
final class BaseImageTransfer {
    private final ImageFetcher fetcher;
    private final Supplier<HostConnections> dedicatedConnections;
    private final Duration transferBudget;
    private final BaseImageDiscard discard;

    BaseImageTransfer(ImageFetcher fetcher, Supplier<HostConnections> dedicatedConnections, Duration transferBudget,
                      BaseImageDiscard discard) {
        this.fetcher = fetcher;
        this.dedicatedConnections = dedicatedConnections;
        this.transferBudget = transferBudget;
        this.discard = discard;
    }

    /**
     * Fetches the image into its base volume on {@code host}, which must not exist.
     *
     * @return what was fetched; the base volume holds the image, complete but not yet marked
     * @throws dev.egressproxies.api.ProviderException classified by the contract; the base volume is
     *                                                 gone (or left for the next attempt to remove)
     */
    FetchResult fetch(HostSettings host, Kvm2Image image, Call call) {
        Call transfer = call.withDeadline(call.deadline().within(transferBudget));
        AtomicBoolean created = new AtomicBoolean();
        HostConnections dedicated = dedicatedConnections.get();
        try {
            return new HostCaller(dedicated).call(host, transfer,
                    libvirt -> upload(libvirt, host, image, transfer, created));
        } catch (RuntimeException failure) {
            dedicated.close();
            if (created.get()) {
                discard.discard(host, image.volume(), call, failure);
            }
            throw failure;
        } finally {
            dedicated.close();
        }
    }

    private FetchResult upload(LibvirtHost libvirt, HostSettings host, Kvm2Image image, Call transfer,
                               AtomicBoolean created) {
        StoragePool pool = Pools.require(libvirt, host, transfer);
        String description = "downloading image " + image.label() + " to host " + host.name();
        Deadline deadline = transfer.deadline();
        try {
            return fetcher.fetch(image.source(), description, deadline, content -> {
                // Of unknown length, the volume starts at one byte and grows with the data, so the
                // file holds exactly the image (kvm-common's uploadVolumeUntilEnd).
                StorageVolume base = create(libvirt, pool, host, image, content.length().orElse(1), transfer);
                created.set(true);
                write(libvirt, base, content);
            });
        } catch (ImageFetchException failure) {
            // Turned into the contract's error here, on the link's thread: the connection pool would
            // take an exception it does not know for a broken link.
            throw ImageFailures.translate(failure, image, transfer);
        }
    }

    private static StorageVolume create(LibvirtHost libvirt, StoragePool pool, HostSettings host, Kvm2Image image,
                                        long capacity, Call call) {
        try {
            return LibvirtSteps.step("creating base image volume " + image.volume(),
                    () -> libvirt.createVolume(pool, VolumeXml.raw(image.volume(), capacity)));
        } catch (LibvirtException exists) {
            if (exists.is(LibvirtErrorCode.STORAGE_VOLUME_EXISTS)) {
                throw call.transientFailure("base image volume " + image.volume() + " appeared on host '"
                        + host.name() + "' while this create was about to fetch it, so another process is fetching"
                        + " it; retry in a while", exists);
            }
            throw exists;
        }
    }

    private static void write(LibvirtHost libvirt, StorageVolume base, ImageContent content) {
        String step = "uploading base image volume " + base.name();
        if (content.length().isPresent()) {
            LibvirtSteps.run(step, () -> libvirt.uploadVolume(base, content.stream(), content.length().getAsLong()));
        } else {
            LibvirtSteps.run(step, () -> libvirt.uploadVolumeUntilEnd(base, content.stream()));
        }
    }
}

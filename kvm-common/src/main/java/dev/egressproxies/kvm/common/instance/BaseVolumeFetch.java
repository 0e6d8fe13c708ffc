package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.image.ImageFetcher.FetchResult;
import dev.egressproxies.kvm.common.image.ImageFetcher.ImageContent;
import dev.egressproxies.kvm.common.image.ImageFetcher;
import dev.egressproxies.kvm.common.image.ImageSource;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrorCode;
import dev.egressproxies.kvm.common.libvirt.LibvirtException;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StoragePool;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StorageVolume;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import dev.egressproxies.kvm.common.libvirt.UploadSourceException;
import dev.egressproxies.kvm.common.xml.VolumeXml;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/** The fetch of an image into a new base volume, created only once the server's answer proved usable. */
public final class BaseVolumeFetch {
    private final ImageFetcher fetcher;

    public BaseVolumeFetch(ImageFetcher fetcher) {
        this.fetcher = Objects.requireNonNull(fetcher, "fetcher");
    }

    /**
     * Fetches {@code source} into the new base volume {@code volume}; ImageFetchException when the
     * fetch fails, TRANSIENT when the volume exists (another process fetches it) or the stream failed.
     */
    public FetchResult fetch(LibvirtHost libvirt, StoragePool pool, HostSettings host, String volume,
                             ImageSource source, String description, Call call,
                             AtomicReference<StorageVolume> created) {
        return fetcher.fetch(source, description, call.deadline(), content -> {
            // Of unknown length, the volume starts at one byte and grows with the upload to exactly the image.
            StorageVolume base = create(libvirt, pool, host, volume, content.length().orElse(1), call);
            created.set(base);
            write(libvirt, base, content, call);
        });
    }

    static StorageVolume create(LibvirtHost libvirt, StoragePool pool, HostSettings host, String volume,
                                        long capacity, Call call) {
        try {
            return LibvirtSteps.step("creating base image volume " + volume,
                    () -> libvirt.createVolume(pool, VolumeXml.raw(volume, capacity)));
        } catch (LibvirtException exists) {
            if (exists.is(LibvirtErrorCode.STORAGE_VOLUME_EXISTS)) {
                throw call.transientFailure("base image volume " + volume + " appeared on host '" + host.name()
                        + "' while this create was about to fetch it, so another process is fetching it; retry in"
                        + " a while", exists);
            }
            throw exists;
        }
    }

    private static void write(LibvirtHost libvirt, StorageVolume base, ImageContent content, Call call) {
        String step = "uploading base image volume " + base.name();
        try {
            if (content.length().isPresent()) {
                LibvirtSteps.run(step,
                        () -> libvirt.uploadVolume(base, content.stream(), content.length().getAsLong()));
            } else {
                LibvirtSteps.run(step, () -> libvirt.uploadVolumeUntilEnd(base, content.stream()));
            }
        } catch (UploadSourceException source) {
            // When the fetch recorded why its stream failed, the fetcher reports that instead.
            throw call.transientFailure(step + " stopped because the image stream failed: " + source.getMessage()
                    + "; retry", source);
        }
    }
}

package dev.egressproxies.kvm;

import dev.egressproxies.api.PreflightCheck;
import dev.egressproxies.api.spi.ProgressReporter;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.instance.BaseImageStrategy;
import dev.egressproxies.kvm.common.instance.Call;
import dev.egressproxies.kvm.common.instance.HostCaller;
import dev.egressproxies.kvm.common.instance.HostPreflight;
import dev.egressproxies.kvm.common.instance.KeyedLocks;
import dev.egressproxies.kvm.common.instance.LibvirtSteps;
import dev.egressproxies.kvm.common.instance.Pools;
import dev.egressproxies.kvm.common.instance.Volumes;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrorCode;
import dev.egressproxies.kvm.common.libvirt.LibvirtException;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import dev.egressproxies.kvm.common.libvirt.StoragePool;
import dev.egressproxies.kvm.common.libvirt.StorageVolume;
import dev.egressproxies.kvm.common.libvirt.UploadSourceException;
import dev.egressproxies.kvm.common.xml.VolumeXml;
import dev.egressproxies.kvm.config.KvmConfig;
import dev.egressproxies.kvm.config.KvmImage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code kvm} backend's base images in the hosts' storage pools: each configured image is
 * downloaded into a host's pool the first time a VM on that host uses it, into a volume named after
 * the image key and format ({@link BaseVolumeNames#base}), and every later VM's overlay is backed by
 * it.
 *
 * <p>A base counts as cached only next to its completeness marker
 * ({@link BaseVolumeNames#baseComplete}), an empty volume created after the upload and the pool
 * refresh succeeded (volume creation is atomic). An upload cut off by a deadline, a broken link or
 * a crash leaves a base without a marker; the next download deletes it and starts over, so no VM
 * is ever backed by a truncated image. A marker without its base is debris and goes too.
 *
 * <p>Concurrent creates that need the same image on the same host wait for one another on a lock
 * per (host, base volume), so the image is downloaded once; the wait ends when the caller's
 * deadline passes. The lock is taken outside any host call, so a waiter whose deadline passes never
 * makes the connection pool close the link the download runs on. The lock is per process: two
 * processes creating on one host at once may both download.
 */
final class KvmBaseImages implements BaseImageStrategy<KvmImageChoice> {
    private static final Logger LOG = LoggerFactory.getLogger(KvmBaseImages.class);

    private final String entry;
    private final KvmConfig config;
    private final HostCaller hosts;
    private final ImageDownloader downloader;
    private final ProgressReporter progress;
    private final KeyedLocks locks = new KeyedLocks();

    KvmBaseImages(String entry, KvmConfig config, HostCaller hosts, ImageDownloader downloader,
                  ProgressReporter progress) {
        this.entry = entry;
        this.config = config;
        this.hosts = hosts;
        this.downloader = downloader;
        this.progress = progress;
    }

    /** A configured image; its VMs boot with the host's firmware. */
    @Override
    public KvmImageChoice resolve(String image, HostSettings host, Call call) {
        KvmImage configured = config.images().get(image);
        if (configured == null) {
            throw call.permanent("placement.image '" + image + "' is not configured: use one of "
                    + config.images().keySet() + ", or add it to images of provider entry '" + entry + "'");
        }
        boolean uefi = config.host(host.name()).orElseThrow().uefi();
        return new KvmImageChoice(image, configured, uefi);
    }

    /**
     * The path of the image's base volume in the pool when it is there and known complete. Changes
     * nothing: a download may be under way in another thread.
     */
    @Override
    public Optional<String> cachedPath(LibvirtHost libvirt, StoragePool pool, HostSettings host, KvmImageChoice image,
                                       Call call) {
        if (lookup(libvirt, pool, BaseVolumeNames.baseComplete(image.key(), image.image().format())).isEmpty()) {
            return Optional.empty();
        }
        return lookup(libvirt, pool, BaseVolumeNames.base(image.key(), image.image().format()))
                .map(StorageVolume::path);
    }

    /**
     * Makes the image's base volume exist, complete, in the host's pool and returns its path:
     * downloads it, unless another create finished the download while this one waited for the lock.
     *
     * @throws dev.egressproxies.api.ProviderException classified as {@link ImageDownloader} and the
     *                                                 host caller say
     */
    @Override
    public String ensure(HostSettings host, KvmImageChoice choice, Call call) {
        String imageKey = choice.key();
        KvmImage image = choice.image();
        String volume = BaseVolumeNames.base(imageKey, image.format());
        String what = "another create downloading image '" + imageKey + "' to host '" + host.name() + "'";
        return locks.withLock(host.name() + "/" + volume, call, what, () -> {
            Optional<String> cached = hosts.call(host, call,
                    libvirt -> completeOrCleared(libvirt, host, imageKey, image, call));
            if (cached.isPresent()) {
                return cached.get();
            }
            try (ImageResponse response = downloader.open(imageKey, image, call)) {
                LOG.info("downloading image {} ({} bytes) from {} to volume {} on host {}", imageKey, response.length(),
                        UrlText.redacted(image.uri()), volume, host.name());
                return hosts.call(host, call, libvirt -> upload(libvirt, host, imageKey, image, response, call));
            }
        });
    }

    /** Every image can be downloaded: a HEAD (or a GET closed at once) per image, nothing downloaded. */
    @Override
    public List<PreflightCheck> preflight(Call call) {
        List<PreflightCheck> checks = new ArrayList<>();
        for (Map.Entry<String, KvmImage> image : config.images().entrySet()) {
            checks.add(HostPreflight.check("image " + image.getKey() + " at " + UrlText.redacted(image.getValue().uri()),
                    () -> "downloadable, " + downloader.probe(image.getKey(), image.getValue(), call) + " bytes ("
                            + image.getValue().format() + ")"));
        }
        return checks;
    }

    /** Returns the complete base's path, or removes what an earlier attempt left and returns empty. */
    private static Optional<String> completeOrCleared(LibvirtHost libvirt, HostSettings host, String imageKey,
                                                      KvmImage image, Call call) {
        StoragePool pool = Pools.require(libvirt, host, call);
        Optional<StorageVolume> marker = lookup(libvirt, pool, BaseVolumeNames.baseComplete(imageKey, image.format()));
        Optional<StorageVolume> base = lookup(libvirt, pool, BaseVolumeNames.base(imageKey, image.format()));
        if (marker.isPresent() && base.isPresent()) {
            return Optional.of(base.get().path());
        }
        // The marker goes first, so that no moment shows a marker next to a partial base.
        marker.ifPresent(debris -> Volumes.delete(libvirt, debris));
        base.ifPresent(cutOff -> {
            LOG.info("removing base image volume {} on host {}: it has no completeness marker, so an earlier"
                    + " download was cut off", cutOff.name(), host.name());
            Volumes.delete(libvirt, cutOff);
        });
        return Optional.empty();
    }

    private String upload(LibvirtHost libvirt, HostSettings host, String imageKey, KvmImage image, ImageResponse response,
                          Call call) {
        String volume = BaseVolumeNames.base(imageKey, image.format());
        StoragePool pool = Pools.require(libvirt, host, call);
        StorageVolume base;
        try {
            // A raw volume of exactly the image's length: the upload writes the image file's bytes as
            // they are, whatever its format, and the overlay names that format. A volume created as
            // qcow2 would start as a qcow2 header file whose bytes past a shorter image would stay.
            String xml = VolumeXml.raw(volume, response.length());
            base = LibvirtSteps.step("creating base image volume " + volume, () -> libvirt.createVolume(pool, xml));
        } catch (LibvirtException exists) {
            if (exists.is(LibvirtErrorCode.STORAGE_VOLUME_EXISTS)) {
                throw call.transientFailure("base image volume " + volume + " appeared on host '" + host.name()
                        + "' while this create was about to download it, so another process is downloading it;"
                        + " retry in a while", exists);
            }
            throw exists;
        }
        try {
            transfer(libvirt, base, imageKey, host, response, call);
            LibvirtSteps.run("refreshing storage pool " + host.pool() + " after the upload",
                    () -> libvirt.refreshPool(pool));
            String marker = BaseVolumeNames.baseComplete(imageKey, image.format());
            LibvirtSteps.step("creating completeness marker " + marker,
                    () -> libvirt.createVolume(pool, VolumeXml.raw(marker, 1)));
        } catch (RuntimeException failure) {
            discard(libvirt, base, failure);
            throw failure;
        }
        return base.path();
    }

    private void transfer(LibvirtHost libvirt, StorageVolume base, String imageKey, HostSettings host,
                          ImageResponse response, Call call) {
        String description = "downloading image " + imageKey + " to host " + host.name();
        RuntimeException uploadFailure = null;
        CountingInputStream body;
        try (ProgressReporter.Progress shown = progress.begin(description, response.length())) {
            body = new CountingInputStream(response.body(), shown);
            TransferWatchdog watchdog = TransferWatchdog.watch(call.deadline(), response);
            try {
                libvirt.uploadVolume(base, body, response.length());
            } catch (RuntimeException failure) {
                uploadFailure = failure;
            } finally {
                watchdog.close();
            }
        }
        Throwable cause = uploadFailure != null ? uploadFailure : body.error();
        if (Thread.currentThread().isInterrupted()) {
            InterruptedException interrupted = new InterruptedException("interrupted while " + description);
            interrupted.initCause(cause);
            throw call.interrupted(interrupted);
        }
        if (call.deadline().isExpired() && cause != null) {
            throw call.deadlineExceeded(description, cause);
        }
        if (body.error() != null) {
            throw call.transientFailure("the download of image '" + imageKey + "' broke after " + body.count() + " of "
                    + response.length() + " bytes: " + body.error() + "; retry", body.error());
        }
        if (body.endedBefore(response.length()) || uploadFailure instanceof UploadSourceException) {
            throw call.transientFailure("the download of image '" + imageKey + "' ended after " + body.count() + " of "
                    + response.length() + " bytes; retry", uploadFailure);
        }
        if (uploadFailure instanceof LibvirtException libvirtFailure) {
            throw new LibvirtException(libvirtFailure.rawCode(), "uploading base image volume " + base.name() + ": "
                    + libvirtFailure.getMessage(), libvirtFailure);
        }
        if (uploadFailure != null) {
            // Not the source's fault, so the link's: rethrown as is, for the connection pool to see.
            throw uploadFailure;
        }
        if (body.count() != response.length()) {
            throw call.transientFailure("the upload of image '" + imageKey + "' stopped after " + body.count() + " of "
                    + response.length() + " bytes; retry", null);
        }
    }

    private static Optional<StorageVolume> lookup(LibvirtHost libvirt, StoragePool pool, String name) {
        return LibvirtSteps.step("looking up volume " + name, () -> libvirt.lookupVolume(pool, name));
    }

    /** Removes a base volume a failed download left; without a marker it would be removed next time anyway. */
    private static void discard(LibvirtHost libvirt, StorageVolume base, RuntimeException failure) {
        try {
            libvirt.deleteVolume(base);
        } catch (RuntimeException cleanup) {
            LOG.info("could not remove the incomplete base image volume {} now; the next download removes it: {}",
                    base.name(), cleanup.toString());
            failure.addSuppressed(cleanup);
        }
    }
}

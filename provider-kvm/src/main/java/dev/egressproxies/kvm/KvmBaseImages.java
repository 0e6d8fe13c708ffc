package dev.egressproxies.kvm;

import dev.egressproxies.api.PreflightCheck;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.image.FetchLocation;
import dev.egressproxies.kvm.common.image.HostImageFetcher;
import dev.egressproxies.kvm.common.image.ImageFetchException;
import dev.egressproxies.kvm.common.image.ImageFetcher.FetchResult;
import dev.egressproxies.kvm.common.image.ImageFetcher;
import dev.egressproxies.kvm.common.image.ImageSource;
import dev.egressproxies.kvm.common.instance.BaseFacts;
import dev.egressproxies.kvm.common.instance.BaseImageDiscard;
import dev.egressproxies.kvm.common.instance.BaseImageStrategy;
import dev.egressproxies.kvm.common.instance.BaseVolumeFetch;
import dev.egressproxies.kvm.common.instance.PoolLeases;
import dev.egressproxies.kvm.common.instance.HostPool;
import dev.egressproxies.kvm.common.instance.HostPreflight;
import dev.egressproxies.kvm.common.instance.HostSideFetch;
import dev.egressproxies.kvm.common.instance.ImageFailures;
import dev.egressproxies.kvm.common.instance.LibvirtSteps;
import dev.egressproxies.kvm.common.instance.Pools;
import dev.egressproxies.kvm.common.instance.Volumes;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StoragePool;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StorageVolume;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import dev.egressproxies.kvm.common.xml.VolumeXml;
import dev.egressproxies.kvm.config.KvmConfig;
import dev.egressproxies.kvm.config.KvmHost;
import dev.egressproxies.kvm.config.KvmImage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code kvm} backend's base images in the hosts' storage pools: each configured image is
 * downloaded into a host's pool the first time a VM on that host uses it, into a volume named after
 * the image key, its source (URL, format, packaging) and format ({@link BaseVolumeNames#base}), and
 * every later VM's overlay is backed by it; a changed source is downloaded into a new base. The download is kvm-common's image pipeline ({@link BaseVolumeFetch}): the file as published
 * (no decompression, no digest pinned), classified as {@link ImageFetchException} says, with
 * messages that show the URL as scheme, host and port only; it is uploaded over the pooled
 * connection to the host, within the caller's deadline.
 *
 * <p>A base counts as cached only next to its completeness marker
 * ({@link BaseVolumeNames#baseComplete}), an empty volume created after the upload and the pool
 * refresh succeeded (volume creation is atomic). An upload cut off by a deadline, a broken link or
 * a crash leaves a base without a marker; the next download deletes it and starts over, so no VM
 * is ever backed by a truncated image. A marker without its base is debris and goes too. Every
 * failure after the base's creation removes it, best effort ({@link BaseImageDiscard}).
 *
 * <p>Concurrent creates that need the same image on the same host wait for one another on a lock
 * per (host, base volume), so the image is downloaded once; the wait ends when the caller's
 * deadline passes. The lock is taken outside any host call, so a waiter whose deadline passes never
 * makes the connection pool close the link the download runs on. Across processes and machines,
 * the fetch lease in the pool ({@link PoolLeases}, a {@code BASE.lease} volume) comes
 * next: only its holder creates the base, removes a base without marker, and writes the marker
 * (after checking it still holds the lease); a create that finds it held by a live process fails
 * TRANSIENT at once, naming the holder and the lease's expiry (this backend has no transfer
 * budget: the lease lasts the holder's deadline plus {@link PoolLeases#MARGIN}). A create that
 * finds the base complete removes its lease when stale (a holder killed after the marker left it).
 */
final class KvmBaseImages implements BaseImageStrategy<KvmImageChoice> {
    private static final Logger LOG = LoggerFactory.getLogger(KvmBaseImages.class);

    private final String entry;
    private final KvmConfig config;
    private final HostPool hosts;
    private final BaseVolumeFetch fetch;
    private final HostSideFetch hostSide;
    private final ImageFetcher probe;
    private final BaseImageDiscard discard;
    private final PoolLeases leases;

    KvmBaseImages(String entry, KvmConfig config, HostPool hosts, ImageFetcher fetcher) {
        this.entry = entry;
        this.config = config;
        this.hosts = hosts;
        this.fetch = new BaseVolumeFetch(fetcher);
        this.hostSide = new HostSideFetch(new HostImageFetcher(ImageFetcher.TransferBudget.none(),
                config.imageIdleTimeout()));
        this.probe = fetcher;
        this.discard = new BaseImageDiscard(hosts);
        this.leases = new PoolLeases(discard);
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

    @Override
    public List<String> imageNames() {
        return List.copyOf(config.images().keySet());
    }

    @Override
    public Optional<String> markerOfBase(String volume) {
        return BaseVolumeNames.isBase(volume) ? Optional.of(BaseVolumeNames.marker(volume)) : Optional.empty();
    }

    @Override
    public String baseVolume(KvmImageChoice image) {
        return BaseVolumeNames.base(image.key(), image.image());
    }

    /** The source of a configured image whose key and source tag the name holds; markers record nothing else. */
    @Override
    public BaseFacts facts(LibvirtHost libvirt, StoragePool pool, String volume, boolean marked) {
        BaseFacts named = BaseFacts.fromName(volume);
        String tag = BaseFacts.tagOf(volume);
        KvmImage configured = config.images().get(named.key());
        if (configured != null && !tag.isEmpty() && configured.source().identityTag().equals(tag)) {
            return named.with(configured.source().redactedUrl().toString(), "");
        }
        return named;
    }

    /**
     * The path of the image's base volume in the pool when it is there and known complete. Changes
     * nothing but a stale fetch lease of that base: a download may be under way in another thread.
     */
    @Override
    public Optional<String> cachedPath(LibvirtHost libvirt, StoragePool pool, HostSettings host, KvmImageChoice image,
                                       Call call) {
        if (lookup(libvirt, pool, BaseVolumeNames.baseComplete(image.key(), image.image())).isEmpty()) {
            return Optional.empty();
        }
        String volume = BaseVolumeNames.base(image.key(), image.image());
        Optional<String> path = lookup(libvirt, pool, volume).map(StorageVolume::path);
        if (path.isPresent()) {
            leases.removeStale(libvirt, pool, host, volume);
        }
        return path;
    }

    /**
     * Makes the image's base volume exist, complete, in the host's pool and returns its path:
     * downloads it, unless another create finished the download while this one waited for the lock.
     *
     * @throws dev.egressproxies.api.ProviderException classified as {@link ImageFetchException} and
     *                                                 the host caller say; a passed deadline as the
     *                                                 call's deadline error
     */
    @Override
    public String ensure(HostSettings host, KvmImageChoice choice, Call call) {
        String imageKey = choice.key();
        KvmImage image = choice.image();
        String volume = BaseVolumeNames.base(imageKey, image);
        String what = "another create downloading image '" + imageKey + "' to host '" + host.name() + "'";
        return leases.exclusively(host, volume, call, what, lease -> leasedEnsure(host, choice, call, lease));
    }

    /** The base's path: the one found complete, or the one downloaded under the fetch lease, set into {@code lease}. */
    private String leasedEnsure(HostSettings host, KvmImageChoice choice, Call call,
                                AtomicReference<PoolLeases.Held> lease) {
        String imageKey = choice.key();
        KvmImage image = choice.image();
        String volume = BaseVolumeNames.base(imageKey, image);
        String what = "downloading image '" + imageKey + "' to host '" + host.name() + "'";
        Optional<String> cached = hosts.call(host, call, libvirt -> {
            StoragePool pool = Pools.require(libvirt, host, call);
            Optional<String> complete = cachedPath(libvirt, pool, host, choice, call);
            if (complete.isPresent()) {
                return complete;
            }
            // Only the lease's holder may remove a base without marker: it may be another process's upload.
            lease.set(leases.acquire(libvirt, pool, host, volume, what, call));
            return completeOrCleared(libvirt, host, imageKey, image, call);
        });
        if (cached.isPresent()) {
            return cached.get();
        }
        AtomicReference<StorageVolume> created = new AtomicReference<>();
        try {
            if (onHost(image)) {
                FetchResult fetched = fetchOnHost(host, imageKey, image, call, created);
                return hosts.call(host, call, libvirt -> complete(libvirt, Pools.require(libvirt, host, call), host,
                        imageKey, image, call, created, lease.get(), fetched));
            }
            return hosts.call(host, call,
                    libvirt -> download(libvirt, host, imageKey, image, call, created, lease.get()));
        } catch (RuntimeException failure) {
            if (created.get() != null && !lease.get().lost()) {
                discard.discard(host, volume, call, failure);
            }
            throw failure;
        }
    }

    /**
     * Every image can be downloaded: a HEAD (or a GET closed at once) per image, nothing downloaded;
     * for images the hosts fetch, per host the pool, the tools and a HEAD from the host.
     */
    @Override
    public List<PreflightCheck> preflight(Call call) {
        List<PreflightCheck> checks = new ArrayList<>();
        Map<String, ImageSource> onHost = new LinkedHashMap<>();
        for (Map.Entry<String, KvmImage> image : config.images().entrySet()) {
            ImageSource source = image.getValue().source();
            if (onHost(image.getValue())) {
                onHost.put(image.getKey(), source);
                continue;
            }
            checks.add(HostPreflight.check("image " + image.getKey() + " at " + source.redactedUrl(),
                    () -> "downloadable, " + publishedBytes(image.getKey(), source, call) + " bytes ("
                            + image.getValue().format() + ")"));
        }
        if (!onHost.isEmpty()) {
            for (HostSettings host : config.hosts().stream().map(KvmHost::settings).toList()) {
                checks.addAll(hostSide.preflight(hosts, host, onHost, call,
                        failure -> ImageFailures.translate(failure, call, "")));
            }
        }
        return checks;
    }

    private long publishedBytes(String imageKey, ImageSource source, Call call) {
        call.checkDeadline();
        try {
            return probe.publishedBytes(source, call.deadline());
        } catch (ImageFetchException failure) {
            throw ImageFailures.translate(failure, call, setting(imageKey));
        }
    }

    /** Returns the complete base's path, or removes what an earlier attempt left and returns empty. */
    private static Optional<String> completeOrCleared(LibvirtHost libvirt, HostSettings host, String imageKey,
                                                      KvmImage image, Call call) {
        StoragePool pool = Pools.require(libvirt, host, call);
        Optional<StorageVolume> marker = lookup(libvirt, pool, BaseVolumeNames.baseComplete(imageKey, image));
        Optional<StorageVolume> base = lookup(libvirt, pool, BaseVolumeNames.base(imageKey, image));
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

    /** Downloads the image into its base volume, refreshes the pool and writes the marker last. */
    private String download(LibvirtHost libvirt, HostSettings host, String imageKey, KvmImage image, Call call,
                            AtomicReference<StorageVolume> created, PoolLeases.Held lease) {
        String volume = BaseVolumeNames.base(imageKey, image);
        StoragePool pool = Pools.require(libvirt, host, call);
        ImageSource source = image.source();
        String description = "downloading image " + imageKey + " to host " + host.name();
        FetchResult fetched;
        try {
            fetched = fetch.fetch(libvirt, pool, host, volume, source, description, call, created);
        } catch (ImageFetchException failure) {
            // Turned into the contract's error here: the pool takes any other exception for a broken link.
            if (failure.reason() == ImageFetchException.Reason.DEADLINE) {
                throw call.deadlineExceeded(description, failure);
            }
            throw ImageFailures.translate(failure, call, setting(imageKey));
        }
        return complete(libvirt, pool, host, imageKey, image, call, created, lease, fetched);
    }

    /** The host downloads the image into the new base volume's file over the pooled link's SSH session. */
    private FetchResult fetchOnHost(HostSettings host, String imageKey, KvmImage image, Call call,
                                    AtomicReference<StorageVolume> created) {
        String volume = BaseVolumeNames.base(imageKey, image);
        try {
            return hostSide.fetch(hosts, host, volume, image.source(), call, created);
        } catch (ImageFetchException failure) {
            if (failure.reason() == ImageFetchException.Reason.DEADLINE) {
                throw call.deadlineExceeded("downloading image " + imageKey + " on host " + host.name(), failure);
            }
            throw ImageFailures.translate(failure, call, setting(imageKey));
        }
    }

    private boolean onHost(KvmImage image) {
        return image.fetchLocation(config.fetchLocation()) == FetchLocation.HOST;
    }

    /** Refreshes the pool and writes the marker last, once the lease was found still held. */
    private String complete(LibvirtHost libvirt, StoragePool pool, HostSettings host, String imageKey, KvmImage image,
                            Call call, AtomicReference<StorageVolume> created, PoolLeases.Held lease,
                            FetchResult fetched) {
        ImageSource source = image.source();
        String volume = BaseVolumeNames.base(imageKey, image);
        LibvirtSteps.run("refreshing storage pool " + host.pool() + " after the upload",
                () -> libvirt.refreshPool(pool));
        String marker = BaseVolumeNames.baseComplete(imageKey, image);
        lease.requireHeld(libvirt, pool, call);
        LibvirtSteps.step("creating completeness marker " + marker,
                () -> libvirt.createVolume(pool, VolumeXml.raw(marker, 1)));
        LOG.info("downloaded image {} ({} bytes) from {} into volume {} on host {}", imageKey, fetched.publishedBytes(),
                source.redactedUrl(), volume, host.name());
        return created.get().path();
    }

    /** How messages about the image's download name it: its key and the setting that holds its URL. */
    private String setting(String imageKey) {
        return "image '" + imageKey + "' (images." + imageKey + ".url of provider entry '" + entry + "')";
    }

    private static Optional<StorageVolume> lookup(LibvirtHost libvirt, StoragePool pool, String name) {
        return LibvirtSteps.step("looking up volume " + name, () -> libvirt.lookupVolume(pool, name));
    }
}

package dev.egressproxies.kvm2;

import dev.egressproxies.api.PreflightCheck;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.image.FetchLocation;
import dev.egressproxies.kvm.common.image.ImageFetchException;
import dev.egressproxies.kvm.common.image.ImageFetcher.FetchResult;
import dev.egressproxies.kvm.common.image.ImageFetcher;
import dev.egressproxies.kvm.common.image.ImageSource;
import dev.egressproxies.kvm.common.instance.BaseFacts;
import dev.egressproxies.kvm.common.instance.BaseImageDiscard;
import dev.egressproxies.kvm.common.instance.BaseImageStrategy;
import dev.egressproxies.kvm.common.instance.PoolLeases;
import dev.egressproxies.kvm.common.instance.HostPool;
import dev.egressproxies.kvm.common.instance.HostPreflight;
import dev.egressproxies.kvm.common.instance.HostSideFetch;
import dev.egressproxies.kvm.common.instance.ImageFailures;
import dev.egressproxies.kvm.common.instance.LibvirtSteps;
import dev.egressproxies.kvm.common.instance.Pools;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.PoolInfo;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StoragePool;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import dev.egressproxies.kvm2.config.CatalogueImage;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.SpanKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code kvm2} backend's base images: a digest-pinned cache per host of the images placements
 * name (catalogue keys or URLs, see {@link ImageCatalogue}), with a quota precheck before anything
 * is written.
 *
 * <p>For a create whose domain does not exist yet:
 * <ol>
 *   <li>within the engine's first host call ({@link #cachedPath}): the pool must run (else
 *       PERMANENT); a complete base ({@link CachedBase}) is used when the overlay and the seed
 *       reserve fit into the pool (else QUOTA_EXCEEDED); a marker with another digest than the
 *       configured one is PERMANENT;
 *   <li>otherwise ({@link #ensure}), holding the lock of (host, base volume) in this process, which
 *       a caller waits for only until its deadline: the base is looked at again (a concurrent create
 *       may have fetched it meanwhile); the image's size is probed (HEAD, or a GET closed at once)
 *       within the per-call budget; then, holding the fetch lease of the base in the pool
 *       ({@link PoolLeases}), which keeps other processes off, whatever an interrupted earlier
 *       fetch left is removed, and the image, overlay and seed reserve must fit into the pool's
 *       available bytes; then the image is fetched over a connection of its own
 *       ({@link BaseImageTransfer}, dialled while the size is probed), the pool refreshed, and the marker
 *       written last, once the lease was found still held. Every failure between the base's
 *       creation and the marker removes the base, unless the lease was lost meanwhile; the lease is
 *       removed at the end, whatever the outcome.
 * </ol>
 * N concurrent creates from one uncached image on one host thus fetch it once. A create in another
 * process that finds the lease held by a live process fails TRANSIENT at once, naming the holder
 * and the lease's expiry; a stale lease (expired, or its holder on this machine gone) is taken over,
 * and removed by a create that finds the base complete (its holder died after the marker).
 *
 * <p>Base volumes are named after the entry, the key and the image's source ({@link
 * BaseVolumeNames}), and the marker records the source next to the digest: an image whose URL or
 * packaging changed is fetched into a new base, and the old one stays for the VMs backing on it.
 */
final class DigestPinnedImages implements BaseImageStrategy<Kvm2Image> {
    private static final Logger LOG = LoggerFactory.getLogger(DigestPinnedImages.class);

    private final ImageCatalogue catalogue;
    private final List<HostSettings> hostList;
    private final HostPool hosts;
    private final ImageFetcher probe;
    private final HostSideFetch hostProbe;
    private final Duration rpcBudget;
    private final PoolSpace space;
    private final BaseImageTransfer transfer;
    private final BaseImageDiscard discard;
    private final Kvm2Telemetry telemetry;
    private final PoolLeases leases;

    DigestPinnedImages(ImageCatalogue catalogue, List<HostSettings> hostList, HostPool hosts, ImageFetcher probe,
                       HostSideFetch hostProbe, Duration rpcBudget, PoolSpace space, BaseImageTransfer transfer,
                       BaseImageDiscard discard, Kvm2Telemetry telemetry) {
        this.catalogue = catalogue;
        this.hostList = List.copyOf(hostList);
        this.hosts = hosts;
        this.probe = probe;
        this.hostProbe = hostProbe;
        this.rpcBudget = rpcBudget;
        this.space = space;
        this.transfer = transfer;
        this.discard = discard;
        this.telemetry = telemetry;
        this.leases = new PoolLeases(discard);
    }

    @Override
    public Kvm2Image resolve(String image, HostSettings host, Call call) {
        return catalogue.resolve(image, call);
    }

    @Override
    public List<String> imageNames() {
        return List.copyOf(catalogue.entries().keySet());
    }

    @Override
    public Optional<String> cachedPath(LibvirtHost libvirt, StoragePool pool, HostSettings host, Kvm2Image image,
                                       Call call) {
        PoolInfo info = Pools.requireRunning(libvirt, pool, host, call);
        Optional<String> path = CachedBase.inspect(libvirt, pool, host, image, call).completePath();
        if (path.isPresent()) {
            space.require(info, 0, host, call);
            leases.removeStale(libvirt, pool, host, image.volume());
        }
        return path;
    }

    @Override
    public Optional<String> markerOfBase(String volume) {
        return catalogue.isBaseVolume(volume) ? Optional.of(BaseVolumeNames.marker(volume)) : Optional.empty();
    }

    @Override
    public String baseVolume(Kvm2Image image) {
        return image.volume();
    }

    /** The digest and redacted source its marker records. */
    @Override
    public BaseFacts facts(LibvirtHost libvirt, StoragePool pool, String volume, boolean marked) {
        BaseFacts named = BaseFacts.fromName(volume);
        if (!marked) {
            return named;
        }
        return LibvirtSteps.step("looking up marker volume " + BaseVolumeNames.marker(volume),
                () -> libvirt.lookupVolume(pool, BaseVolumeNames.marker(volume)))
                .map(marker -> CachedBase.recorded(libvirt, marker))
                .map(recorded -> new BaseFacts(named.key(), recorded.source(), recorded.digest(), named.format(),
                        named.legacy() || recorded.source().isEmpty()))
                .orElse(named);
    }

    @Override
    public String ensure(HostSettings host, Kvm2Image image, Call call) {
        String what = "another create fetching image " + image.label() + " to host '" + host.name() + "'";
        return leases.exclusively(host, image.volume(), call, what,
                lease -> leasedEnsure(host, image, call, what.substring("another create ".length()), lease));
    }

    /**
     * The base's path: the one found complete, or the one fetched under the fetch lease, set into
     * {@code lease}. The size probe comes before the lease, so a server that refuses the image
     * makes nothing be written.
     */
    private String leasedEnsure(HostSettings host, Kvm2Image image, Call call, String what,
                                AtomicReference<PoolLeases.Held> lease) {
        Optional<String> cached = hosts.call(host, call,
                libvirt -> cachedPath(libvirt, Pools.require(libvirt, host, call), host, image, call));
        if (cached.isPresent()) {
            return cached.get();
        }
        try (HostPool transferConnection = transfer.dialAhead(host, call)) {
            long publishedBytes = publishedBytes(image, host, call);
            Optional<String> fetchedMeanwhile = hosts.call(host, call, libvirt -> {
                StoragePool pool = Pools.require(libvirt, host, call);
                // Only the lease's holder may remove a base without marker: it may be another process's upload.
                lease.set(leases.acquire(libvirt, pool, host, image.volume(), what, call));
                Optional<String> complete = CachedBase.inspect(libvirt, pool, host, image, call)
                        .completeOrCleared(libvirt, host);
                space.require(Pools.requireRunning(libvirt, pool, host, call),
                        complete.isPresent() ? 0 : publishedBytes, host, call);
                return complete;
            });
            return fetchedMeanwhile.orElseGet(() -> fetch(transferConnection, host, image, call, lease.get()));
        }
    }

    /**
     * Every catalogue image can be fetched: a size probe per image fetched by the client, nothing
     * downloaded; for images fetched on the hosts, per host the pool, the tools and a size probe
     * from the host (and, when the entry fetches on the hosts, that its hosts can).
     */
    @Override
    public List<PreflightCheck> preflight(Call call) {
        List<PreflightCheck> checks = new ArrayList<>();
        Map<String, ImageSource> onHost = new LinkedHashMap<>();
        for (Map.Entry<String, CatalogueImage> entry : catalogue.entries().entrySet()) {
            Kvm2Image image = catalogue.resolve(entry.getKey(), call);
            if (image.onHost()) {
                onHost.put(entry.getKey(), image.source());
                continue;
            }
            checks.add(HostPreflight.check("image " + entry.getKey() + " at " + image.source().redactedUrl(),
                    () -> "fetchable, " + publishedBytes(image, null, call) + " bytes as published ("
                            + image.format().xmlName() + ", compression "
                            + image.source().compression().configName()
                            + (image.pinned() ? ", sha256 pinned" : ", no sha256 pinned") + ")"));
        }
        if (!onHost.isEmpty() || catalogue.fetch() == FetchLocation.HOST) {
            Call bounded = call.withDeadline(call.deadline().within(rpcBudget));
            for (HostSettings host : hostList) {
                checks.addAll(hostProbe.preflight(hosts, host, onHost, bounded,
                        failure -> ImageFailures.translate(failure, bounded, "")));
            }
        }
        return checks;
    }

    /** The published file's size, probed within the per-call budget: from {@code host} when it fetches the image. */
    private long publishedBytes(Kvm2Image image, HostSettings host, Call call) {
        call.checkDeadline();
        Call bounded = call.withDeadline(call.deadline().within(rpcBudget));
        try {
            if (image.onHost()) {
                return hostProbe.publishedBytes(hosts, host, image.source(), bounded);
            }
            return probe.publishedBytes(image.source(), bounded.deadline());
        } catch (ImageFetchException failure) {
            throw ImageFailures.translate(failure, call, image.subject());
        }
    }

    /** Fetches the image, then refreshes the pool and writes the marker, under the download span. */
    private String fetch(HostPool transferConnection, HostSettings host, Kvm2Image image, Call call,
                         PoolLeases.Held lease) {
        Attributes attributes = Attributes.builder()
                .put(Kvm2Telemetry.HOST, host.name())
                .put(Kvm2Telemetry.VOLUME, image.volume())
                .put(Kvm2Telemetry.URL_HOST, image.source().redactedUrl().host())
                .put(Kvm2Telemetry.SHA256_CONFIGURED, image.pinned())
                .build();
        return telemetry.inSpan("kvm2.download", SpanKind.CLIENT, attributes, () -> {
            long started = System.nanoTime();
            FetchResult fetched = transfer.fetch(transferConnection, host, image, call);
            String path = mark(host, image, fetched, call, lease);
            LOG.info("fetched image {} into base volume {} on host {}: {} bytes as published, {} as image, sha256 {},"
                    + " in {} ms", image.label(), image.volume(), host.name(), fetched.publishedBytes(),
                    fetched.decompressedBytes(), fetched.sha256(), (System.nanoTime() - started) / 1_000_000);
            return new Fetched(path, fetched);
        }, done -> {
            if (done.result() != null) {
                done.span().setAttribute(Kvm2Telemetry.BYTES, done.result().result().publishedBytes());
                done.span().setAttribute(Kvm2Telemetry.IMAGE_BYTES, done.result().result().decompressedBytes());
            }
        }).path();
    }

    /**
     * The base's path, once the pool was refreshed, the lease found still held and the marker
     * written; removes the base on failure, unless the lease was lost (the base is then another
     * process's).
     */
    private String mark(HostSettings host, Kvm2Image image, FetchResult fetched, Call call, PoolLeases.Held lease) {
        try {
            return hosts.call(host, call, libvirt -> {
                StoragePool pool = Pools.require(libvirt, host, call);
                LibvirtSteps.run("refreshing storage pool " + host.pool() + " after the upload",
                        () -> libvirt.refreshPool(pool));
                lease.requireHeld(libvirt, pool, call);
                CachedBase.writeMarker(libvirt, pool, image, fetched.sha256());
                return LibvirtSteps.step("looking up base image volume " + image.volume(),
                        () -> libvirt.lookupVolume(pool, image.volume()))
                        .orElseThrow(() -> call.transientFailure("base image volume " + image.volume()
                                + " vanished right after it was fetched, so something removed it; retry", null))
                        .path();
            });
        } catch (RuntimeException failure) {
            if (!lease.lost()) {
                discard.discard(host, image.volume(), call, failure);
            }
            throw failure;
        }
    }

    /** A fetched base's path and what the fetch delivered. */
    private record Fetched(String path, FetchResult result) {
    }
}

package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.config.MachineSize;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrorCode;
import dev.egressproxies.kvm.common.libvirt.LibvirtException;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.Domain;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StoragePool;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StorageVolume;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import dev.egressproxies.kvm.common.seed.NoCloudSeed;
import dev.egressproxies.kvm.common.xml.DiskFormat;
import dev.egressproxies.kvm.common.xml.DomainDefinition;
import dev.egressproxies.kvm.common.xml.DomainXml;
import dev.egressproxies.kvm.common.xml.InstanceMetadata;
import dev.egressproxies.kvm.common.xml.VolumeXml;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The steps of a create: refuse a name another host holds, start an existing domain of this entry,
 * else the base, the overlay (reused after a crash: creation is atomic), a fresh seed, the domain.
 */
final class InstanceCreator<I extends ImageChoice> {
    private static final Logger LOG = LoggerFactory.getLogger(InstanceCreator.class);
    private static final Pattern INSTANCE_NAME = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");
    private static final String OVERLAY_SUFFIX = ".qcow2";
    private static final String SEED_SUFFIX = ".seed.iso";

    /** The longest pause between two looks at a prune's lease on the base of a new overlay. */
    private static final Duration LEASE_WAIT_MAX_STEP = Duration.ofSeconds(1);

    private final EntrySettings settings;
    private final HostPool hosts;
    private final BaseImageStrategy<I> images;
    private final HostCordons cordons;
    private final Clock clock;
    /** Judges the fetch lease of a base found next to a new overlay; never takes one. */
    private final PoolLeases leases;

    InstanceCreator(EntrySettings settings, HostPool hosts, BaseImageStrategy<I> images, HostCordons cordons,
                    Clock clock, PoolLeases leases) {
        this.settings = settings;
        this.hosts = hosts;
        this.images = images;
        this.cordons = cordons;
        this.clock = clock;
        this.leases = leases;
    }

    record Target<I>(HostSettings host, MachineSize machineType, I image) {
    }

    /** Entries share pools, so volume names hold the entry's name and the instance's. */
    static String overlayVolume(String entry, String name) {
        return entry + "+" + name + OVERLAY_SUFFIX;
    }

    static String seedVolume(String entry, String name) {
        return entry + "+" + name + SEED_SUFFIX;
    }

    /** The instance whose overlay or seed {@code volume} is, if it is one of {@code entry}'s. */
    static Optional<String> instanceOfVolume(String entry, String volume) {
        String prefix = entry + "+";
        if (!volume.startsWith(prefix)) {
            return Optional.empty();
        }
        String rest = volume.substring(prefix.length());
        for (String suffix : List.of(OVERLAY_SUFFIX, SEED_SUFFIX)) {
            if (rest.endsWith(suffix)) {
                String name = rest.substring(0, rest.length() - suffix.length());
                // The entry's bases carry dots before .qcow2; an instance name is a DNS label.
                return INSTANCE_NAME.matcher(name).matches() ? Optional.of(name) : Optional.empty();
            }
        }
        return Optional.empty();
    }

    /** Deletes the overlay and seed of instance {@code name} where the pool has them; returns those it deleted. */
    static List<String> deleteInstanceVolumes(LibvirtHost libvirt, StoragePool pool, String entry, String name) {
        List<String> deleted = new ArrayList<>();
        for (String volume : List.of(overlayVolume(entry, name), seedVolume(entry, name))) {
            if (Volumes.deleteIfPresent(libvirt, pool, volume)) {
                deleted.add(volume);
            }
        }
        return deleted;
    }

    /** Creates the instance of a resolved request, under the lock and claim of its name; returns the provider ID. */
    String create(Target<I> target, CreateRequest request, Call call) {
        requireNameFreeOnOtherHosts(target.host(), request.name(), call);
        return createChecked(target, request, call);
    }

    /** {@link #create} once the other hosts are known not to hold the name. */
    String createChecked(Target<I> target, CreateRequest request, Call call) {
        HostSettings host = target.host();
        Survey survey = hosts.call(host, call, libvirt -> survey(libvirt, target, request.name(), call));
        if (survey.domainExisted()) {
            return call.instanceId();
        }
        if (settings.hosts().size() > 1) {
            cordons.requireOpen(host, request.name(), call);
        }
        String basePath = survey.basePath().orElseGet(() -> images.ensure(host, target.image(), call));
        byte[] seed = seed(request.name(), request.cloudInit(), settings.vendorData(), clock, call);
        if (!hosts.call(host, call, libvirt -> build(libvirt, target, request, basePath, seed, call))) {
            // A prune deleted the base before the overlay was made safe: fetch it anew, once.
            String fetched = images.ensure(host, target.image(), call);
            if (!hosts.call(host, call, libvirt -> build(libvirt, target, request, fetched, seed, call))) {
                throw call.transientFailure("base image volume " + images.baseVolume(target.image()) + " on host '"
                        + host.name() + "' was pruned twice while this create made its disk; retry", null);
            }
        }
        LOG.debug("created instance {} in provider entry {}", call.instanceId(), settings.entry());
        return call.instanceId();
    }

    /**
     * Makes the image's base complete on the target's host, as a create does before the overlay, and
     * returns whether it had to be fetched: the work of {@code egressctl images pull}.
     */
    boolean ensureBase(Target<I> target, Call call) {
        HostSettings host = target.host();
        Optional<String> cached = hosts.call(host, call, libvirt -> images.cachedPath(libvirt,
                Pools.require(libvirt, host, call), host, target.image(), call));
        if (cached.isPresent()) {
            return false;
        }
        images.ensure(host, target.image(), call);
        return true;
    }

    static byte[] seed(String name, String userData, String vendorData, Clock clock, Call call) {
        try {
            return NoCloudSeed.builder(name).userData(userData).vendorData(vendorData).build().toIsoImage(clock);
        } catch (IllegalArgumentException invalid) {
            throw call.failure(ErrorKind.PERMANENT, "the NoCloud seed cannot be built: " + invalid.getMessage()
                    + "; shrink the cloud-init user-data or the entry's vendorData", invalid);
        }
    }

    /** The host that holds this entry's instance of {@code name}, if any; TRANSIENT when a host cannot be read. */
    Optional<HostSettings> hostHolding(String name, Call call) {
        for (HostSettings host : settings.hosts()) {
            if (holds(host, name, call).isPresent()) {
                return Optional.of(host);
            }
        }
        return Optional.empty();
    }

    /** A name is one instance per entry, so apply can tell a move from a second VM. */
    private void requireNameFreeOnOtherHosts(HostSettings target, String name, Call call) {
        for (HostSettings other : settings.hosts()) {
            if (other.name().equals(target.name())) {
                continue;
            }
            Optional<String> existing = holds(other, name, call);
            if (existing.isPresent()) {
                throw call.permanent("the name '" + name + "' is taken in provider entry '" + settings.entry()
                        + "' by instance " + existing.get() + " in zone '" + other.name() + "': a name is one instance"
                        + " across all the entry's zones; to move it to zone '" + target.name() + "', delete "
                        + existing.get() + " first (egressctl apply does so), or choose another name");
            }
        }
    }

    /**
     * The ID of this entry's instance of {@code name} on {@code other}; TRANSIENT when the host cannot
     * be read. Where no domain has the name, what a cut-off create of it left there is removed.
     */
    private Optional<String> holds(HostSettings other, String name, Call call) {
        try {
            return hosts.call(other, call, libvirt -> {
                Optional<Domain> domain = LibvirtSteps.step("looking up domain " + name,
                        () -> libvirt.lookupDomain(name));
                if (domain.isEmpty()) {
                    removeCutOffCreate(libvirt, other, name);
                    return Optional.empty();
                }
                return thisEntrysDomain(libvirt, other, domain.get());
            });
        } catch (ProviderException unreadable) {
            if (call.deadline().isExpired() || Thread.currentThread().isInterrupted()) {
                throw unreadable;
            }
            throw call.transientFailure("cannot tell whether the name '" + name + "' is free: zone (host) '"
                    + other.name() + "' of provider entry '" + settings.entry() + "' cannot be read ("
                    + unreadable.getMessage() + "); a name is one instance across all the entry's zones, so retry"
                    + " when host '" + other.name() + "' answers", unreadable);
        }
    }

    /** The ID of {@code domain} on {@code host} if this entry made it; unreadable metadata is not this entry's. */
    private Optional<String> thisEntrysDomain(LibvirtHost libvirt, HostSettings host, Domain domain) {
        String name = domain.name();
        Optional<InstanceMetadata> metadata;
        try {
            metadata = InstanceInspector.metadataOf(libvirt, domain);
        } catch (IllegalArgumentException unreadable) {
            LOG.warn("domain {} on host {} has egress-proxies metadata that cannot be read ({}); it is not counted as"
                    + " this entry's instance", name, host.name(), unreadable.getMessage());
            return Optional.empty();
        }
        return metadata.filter(ours -> ours.createdThrough(settings.entry()))
                .map(ours -> new ProviderId(host.name(), name).toString());
    }

    /**
     * Deletes the overlay and seed of {@code name} on a host where no domain has that name: a create
     * killed before it defined the domain left them, and the caller holds the name's claim, so no
     * create of it runs elsewhere. A host whose pool cannot be read keeps them, with a warning.
     */
    private void removeCutOffCreate(LibvirtHost libvirt, HostSettings host, String name) {
        try {
            Optional<StoragePool> pool = Pools.find(libvirt, host);
            if (pool.isEmpty()) {
                return;
            }
            for (String volume : deleteInstanceVolumes(libvirt, pool.get(), settings.entry(), name)) {
                LOG.warn("removed volume {} from storage pool {} on host {}: a create of {} in provider entry {}"
                        + " was cut off there before it defined the domain", volume, host.pool(), host.name(), name,
                        settings.entry());
            }
        } catch (LibvirtException unreadable) {
            LOG.warn("could not look for what a cut-off create of {} left in storage pool {} on host {}: {}", name,
                    host.pool(), host.name(), unreadable.getMessage());
        }
    }

    /** What the first look at the host found: a domain that exists (and now runs), or the base's path. */
    private record Survey(boolean domainExisted, Optional<String> basePath) {
    }

    private Survey survey(LibvirtHost libvirt, Target<I> placement, String name, Call call) {
        Optional<Domain> existing = LibvirtSteps.step("looking up domain " + name, () -> libvirt.lookupDomain(name));
        if (existing.isPresent()) {
            requireManaged(libvirt, placement.host(), existing.get(), call);
            LOG.debug("domain {} is already defined; making sure it runs", name);
            startExisting(libvirt, placement.host(), existing.get(), call);
            return new Survey(true, Optional.empty());
        }
        call.checkDeadline();
        StoragePool pool = Pools.require(libvirt, placement.host(), call);
        return new Survey(false, images.cachedPath(libvirt, pool, placement.host(), placement.image(), call));
    }

    private static void requireManaged(LibvirtHost libvirt, HostSettings host, Domain domain, Call call) {
        InstanceMetadata metadata = InstanceInspector.readableMetadataOf(libvirt, host, domain, call)
                .orElseThrow(() -> call.permanent("a domain named '" + domain.name() + "' exists on host '"
                        + host.name() + "' that egress-proxies did not create: remove or rename it, or choose another"
                        + " name"));
        InstanceInspector.requireThisEntry(metadata, host, domain.name(), call);
    }

    /** Makes overlay, seed and domain and starts it; false, leaving nothing, when the base was pruned meanwhile. */
    private boolean build(LibvirtHost libvirt, Target<I> placement, CreateRequest request, String basePath,
                          byte[] seed, Call call) {
        String name = request.name();
        StoragePool pool = Pools.require(libvirt, placement.host(), call);
        List<String> volumePaths = new ArrayList<>();
        Domain domain = null;
        try {
            String base = images.baseVolume(placement.image());
            Optional<StorageVolume> made = overlayOnKeptBase(libvirt, pool, placement.host(), name, base, basePath,
                    placement.image().format(), call);
            if (made.isEmpty()) {
                return false;
            }
            StorageVolume overlay = made.get();
            volumePaths.add(overlay.path());
            call.checkDeadline();
            StorageVolume seedVolume = replaceSeed(libvirt, pool, name, seed);
            volumePaths.add(seedVolume.path());
            call.checkDeadline();
            String xml = DomainXml.of(definition(placement, request, overlay.path(), seedVolume.path()));
            domain = LibvirtSteps.step("defining domain " + name, () -> libvirt.defineDomain(xml));
            call.checkDeadline();
            start(libvirt, domain);
            return true;
        } catch (LibvirtException failure) {
            if (failure.kind() != ErrorKind.PERMANENT) {
                throw failure;
            }
            String removal = removeWhatThisCreateMade(libvirt, pool, name, domain, failure);
            throw call.failure(ErrorKind.PERMANENT, HostPreflight.refusal(failure, placement.host(),
                    settings.hosts().indexOf(placement.host()), volumePaths) + removal, failure);
        } catch (IllegalArgumentException unusable) {
            String removal = removeWhatThisCreateMade(libvirt, pool, name, domain, unusable);
            throw call.failure(ErrorKind.PERMANENT, "a value of the request or of host '" + placement.host().name()
                    + "' cannot be given to libvirt: " + unusable.getMessage() + "; change it, retrying cannot help"
                    + removal, unusable);
        }
    }

    /** Best effort, so the create after a fixed configuration starts clean; returns a clause for the error. */
    private String removeWhatThisCreateMade(LibvirtHost libvirt, StoragePool pool, String name, Domain domain,
                                            RuntimeException failure) {
        try {
            if (domain != null) {
                LibvirtSteps.run("undefining domain " + name, () -> libvirt.undefineDomain(domain));
            }
            deleteInstanceVolumes(libvirt, pool, settings.entry(), name);
            return "; nothing of instance " + name + " was left on the host";
        } catch (RuntimeException cleanup) {
            failure.addSuppressed(cleanup);
            LOG.warn("could not remove what the failed create of {} made: {}", name, cleanup.toString());
            return "; removing what this create made failed (" + cleanup.getMessage() + "): delete the instance"
                    + " before creating it again";
        }
    }

    private DomainDefinition definition(Target<I> placement, CreateRequest request, String overlayPath,
                                        String seedPath) {
        HostSettings host = placement.host();
        MachineSize machineType = placement.machineType();
        return new DomainDefinition(request.name(), machineType.memoryMiB(), machineType.vcpus(), host.platform(),
                placement.image().uefi(), overlayPath, seedPath, host.bridge(),
                new InstanceMetadata(request.uid(), clock.instant(), Optional.of(settings.entry()),
                        request.placement().machineType(), recordedImage(request.placement().image()),
                        request.cloudInitSha256()));
    }

    /** The image for the metadata; {@code ""} for a URL with user info, query or fragment (secrets live there). */
    static String recordedImage(String image) {
        try {
            URI url = new URI(image);
            if (url.getRawUserInfo() != null || url.getRawQuery() != null || url.getRawFragment() != null) {
                return "";
            }
        } catch (URISyntaxException notAUrl) {
            // A catalogue key that is no URI reference at all; nothing secret about it.
        }
        return image;
    }

    /**
     * The overlay on {@code base}, once it is known that the base stays: no prune's fetch lease holds
     * it (a prune takes one before it looks for overlays one last time) and it is there. Empty, with the
     * overlay removed, when the base is gone: a prune deleted it, so it must be fetched anew.
     */
    private Optional<StorageVolume> overlayOnKeptBase(LibvirtHost libvirt, StoragePool pool, HostSettings host,
                                                      String name, String base, String basePath,
                                                      DiskFormat baseFormat, Call call) {
        StorageVolume overlay;
        try {
            overlay = ensureOverlay(libvirt, pool, name, basePath, baseFormat, call);
        } catch (LibvirtException failure) {
            if (Volumes.lookup(libvirt, pool, base).isEmpty()) {
                LOG.info("base image volume {} on host {} was deleted (pruned) before the overlay of {} was made;"
                        + " fetching it anew", base, host.name(), name);
                return Optional.empty();
            }
            throw failure;
        }
        Duration step = Duration.ofMillis(50);
        String lease = PoolLeases.volumeName(base);
        long unwrittenSince = 0;
        while (true) {
            Optional<StorageVolume> held = Volumes.lookup(libvirt, pool, lease);
            if (held.isEmpty()) {
                break;
            }
            Optional<PoolLease> found = PoolLeases.readLease(libvirt, pool, lease);
            if (found.isPresent() && (!found.get().pruning() || leases.staleness(found.get()).isPresent())) {
                // A fetch's lease next to a complete base, or a dead prune's: neither deletes the base.
                break;
            }
            if (found.isEmpty()) {
                // Being written (a prune's, maybe) or left empty by a crash: the latter for good after a while.
                unwrittenSince = unwrittenSince == 0 ? System.nanoTime() : unwrittenSince;
                if (System.nanoTime() - unwrittenSince > PoolLeases.UNWRITTEN_GRACE.toNanos()) {
                    break;
                }
            }
            call.checkDeadline();
            try {
                Thread.sleep(Math.min(step.toMillis(), Math.max(1, call.deadline().remaining().toMillis())));
            } catch (InterruptedException interrupted) {
                throw call.interrupted(interrupted);
            }
            step = step.multipliedBy(2).compareTo(LEASE_WAIT_MAX_STEP) > 0 ? LEASE_WAIT_MAX_STEP : step.multipliedBy(2);
        }
        if (Volumes.lookup(libvirt, pool, base).isPresent()) {
            return Optional.of(overlay);
        }
        LOG.info("base image volume {} on host {} was pruned while the overlay of {} was made; fetching it anew", base,
                host.name(), name);
        Volumes.delete(libvirt, overlay);
        return Optional.empty();
    }

    private StorageVolume ensureOverlay(LibvirtHost libvirt, StoragePool pool, String name, String basePath,
                                       DiskFormat baseFormat, Call call) {
        String overlayName = overlayVolume(settings.entry(), name);
        String xml = VolumeXml.overlay(overlayName, settings.diskSizeGb(), basePath, baseFormat);
        Optional<StorageVolume> created = Volumes.createUnlessExists(libvirt, pool, xml,
                "creating overlay volume " + overlayName);
        if (created.isPresent()) {
            return created.get();
        }
        LOG.debug("reusing overlay volume {} that an earlier create left", overlayName);
        return LibvirtSteps.step("looking up overlay volume " + overlayName,
                        () -> libvirt.lookupVolume(pool, overlayName))
                .orElseThrow(() -> call.transientFailure("overlay volume " + overlayName + " existed a moment ago and"
                        + " is gone now, so a delete ran at the same time; retry", null));
    }

    /** Always fresh: a leftover seed may be a cut-off upload, which would boot the VM without cloud-init. */
    private StorageVolume replaceSeed(LibvirtHost libvirt, StoragePool pool, String name, byte[] seed) {
        String seedName = seedVolume(settings.entry(), name);
        Volumes.deleteIfPresent(libvirt, pool, seedName);
        StorageVolume volume = LibvirtSteps.step("creating seed volume " + seedName,
                () -> libvirt.createVolume(pool, VolumeXml.raw(seedName, seed.length)));
        LibvirtSteps.run("uploading seed volume " + seedName,
                () -> libvirt.uploadVolume(volume, new ByteArrayInputStream(seed), seed.length));
        return volume;
    }

    /** A refused start leaves the domain as it is: it existed before this create. */
    private void startExisting(LibvirtHost libvirt, HostSettings host, Domain domain, Call call) {
        try {
            if (!LibvirtSteps.step("reading the state of domain " + domain.name(), () -> libvirt.domainState(domain))
                    .isActive()) {
                start(libvirt, domain);
            }
        } catch (LibvirtException failure) {
            if (failure.kind() != ErrorKind.PERMANENT) {
                throw failure;
            }
            throw call.failure(ErrorKind.PERMANENT, HostPreflight.refusal(failure, host,
                    settings.hosts().indexOf(host), List.of()) + "; domain " + domain.name() + " was defined by an"
                    + " earlier create and keeps the settings it was defined with: after fixing them, delete the"
                    + " instance and create it again", failure);
        }
    }

    private static void start(LibvirtHost libvirt, Domain domain) {
        try {
            LibvirtSteps.run("starting domain " + domain.name(), () -> libvirt.startDomain(domain));
        } catch (LibvirtException alreadyRunning) {
            // libvirt's answer to starting a domain that runs; a concurrent start won the race.
            if (!alreadyRunning.is(LibvirtErrorCode.OPERATION_INVALID)) {
                throw alreadyRunning;
            }
        }
    }
}

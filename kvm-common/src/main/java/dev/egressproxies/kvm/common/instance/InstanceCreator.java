package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.config.MachineSize;
import dev.egressproxies.kvm.common.libvirt.Domain;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrorCode;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrors;
import dev.egressproxies.kvm.common.libvirt.LibvirtException;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import dev.egressproxies.kvm.common.libvirt.StoragePool;
import dev.egressproxies.kvm.common.libvirt.StorageVolume;
import dev.egressproxies.kvm.common.xml.DiskFormat;
import dev.egressproxies.kvm.common.xml.DomainDefinition;
import dev.egressproxies.kvm.common.xml.DomainXml;
import dev.egressproxies.kvm.common.xml.InstanceMetadata;
import dev.egressproxies.kvm.common.xml.VolumeXml;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The create operation, which makes an instance exist and run, idempotently.
 *
 * <ol>
 *   <li>The request and its placement are checked before any I/O; a bad one is PERMANENT and
 *       touches nothing.
 *   <li>A domain of that name that this entry created (it carries the platform's metadata naming
 *       the entry) is only started if it is not running; its volumes are left as they are. A
 *       domain of that name that the platform did not create, or that another entry or no entry
 *       created ({@link EntryScope}), is PERMANENT and left alone with its volumes: adopting it
 *       would hand the caller a VM that listManaged never reports, and starting it would meddle
 *       with someone else's VM.
 *   <li>Otherwise the image's base volume is made present and complete in the host's pool
 *       (by the backend's {@link BaseImageStrategy}, which downloads it on first use), the overlay is created on it or,
 *       when a crashed create of this entry left one, reused (volume creation is atomic, so an
 *       overlay that exists is complete; volumes are named after the entry, {@link VolumeNames}, so
 *       it is never another entry's), and the seed ISO is rebuilt from scratch: no domain uses it yet, and
 *       a leftover one may be an upload that was cut off, which would boot the VM without
 *       cloud-init. Then the domain is defined with the platform's metadata and started.
 *   <li>When libvirt refuses the overlay, seed, definition or start for good (PERMANENT: a missing
 *       bridge or firmware file, a domain type the host does not offer), the create removes what
 *       it made for the instance (the domain it defined, with its NVRAM, the overlay and the seed)
 *       and names the host setting to fix ({@link HostSettingFaults}), so the create after the fix
 *       starts clean. A TRANSIENT failure leaves everything for the next create to reuse.
 * </ol>
 * Before the host is touched, the entry's other hosts are asked for a domain of that name that this
 * entry created (one lookup each): a name is one instance per entry, so one found there is
 * PERMANENT, and a host that cannot be read is TRANSIENT. Creates and deletes of one name take turns
 * within this process, so a second create can never replace the seed of a domain the first one just
 * started, nor pass the check on another host while the first one creates. The deadline is checked
 * between steps.
 */
final class InstanceCreator<I extends ImageChoice> {
    private static final Logger LOG = LoggerFactory.getLogger(InstanceCreator.class);

    private final String entry;
    /** The size of each overlay in GiB, the unit of kvm-common's overlay volumes. */
    private final int diskSizeGib;
    private final List<HostSettings> entryHosts;
    private final Placements<I> placements;
    private final HostCaller hosts;
    private final BaseImageStrategy<I> images;
    private final SeedImages seeds;
    private final Clock clock;
    private final KeyedLocks instanceLocks;

    InstanceCreator(String entry, int diskSizeGib, List<HostSettings> entryHosts, Placements<I> placements,
                    HostCaller hosts, BaseImageStrategy<I> images, SeedImages seeds, Clock clock,
                    KeyedLocks instanceLocks) {
        this.entry = entry;
        this.diskSizeGib = diskSizeGib;
        this.entryHosts = List.copyOf(entryHosts);
        this.placements = placements;
        this.hosts = hosts;
        this.images = images;
        this.seeds = seeds;
        this.clock = clock;
        this.instanceLocks = instanceLocks;
    }

    /** See {@link dev.egressproxies.api.Provider#validate}: the checks {@link #create} makes before any I/O. */
    Placements.Resolved<I> validate(CreateRequest request, Deadline deadline) {
        request.validate(entry);
        return placements.resolve(request, new Call(entry, Operation.CREATE, request.name(), deadline));
    }

    /** See {@link dev.egressproxies.api.Provider#create}. */
    String create(CreateRequest request, Deadline deadline) {
        Placements.Resolved<I> placement = validate(request, deadline);
        HostSettings host = placement.host();
        String id = new ProviderId(host.name(), request.name()).toString();
        Call call = new Call(entry, Operation.CREATE, id, deadline);
        // Keyed by name, not ID: a name is one instance across the entry's hosts.
        return instanceLocks.withLock(request.name(), call, "another create or delete of " + request.name(), () -> {
            requireNameFreeOnOtherHosts(host, request.name(), call);
            Survey survey = hosts.call(host, call, libvirt -> survey(libvirt, placement, request.name(), call));
            if (survey.domainExisted()) {
                return id;
            }
            String basePath = survey.basePath()
                    .orElseGet(() -> images.ensure(host, placement.image(), call));
            byte[] seed = seeds.build(request.name(), request.cloudInit(), call);
            hosts.call(host, call, libvirt -> {
                build(libvirt, placement, request, basePath, seed, call);
                return null;
            });
            LOG.debug("created instance {} in provider entry {}", id, entry);
            return id;
        });
    }

    /**
     * Refuses a name that this entry's domain holds on another of its hosts (one lookup per other
     * host), before the target host is touched: a name is one instance per entry, so that apply can
     * tell a move from a second VM. A host that cannot be read cannot prove the name free.
     *
     * @throws dev.egressproxies.api.ProviderException PERMANENT naming the existing instance's ID;
     *                                                 TRANSIENT naming the host that could not be read
     */
    private void requireNameFreeOnOtherHosts(HostSettings target, String name, Call call) {
        for (HostSettings other : entryHosts) {
            if (other.name().equals(target.name())) {
                continue;
            }
            Optional<String> existing;
            try {
                existing = hosts.call(other, call, libvirt -> thisEntrysDomain(libvirt, other, name));
            } catch (ProviderException unreadable) {
                if (call.deadline().isExpired() || Thread.currentThread().isInterrupted()) {
                    throw unreadable;
                }
                throw call.transientFailure("cannot tell whether the name '" + name + "' is free: zone (host) '"
                        + other.name() + "' of provider entry '" + entry + "' cannot be read (" + unreadable.getMessage()
                        + "); a name is one instance across all the entry's zones, so retry when host '"
                        + other.name() + "' answers", unreadable);
            }
            if (existing.isPresent()) {
                throw call.permanent("the name '" + name + "' is taken in provider entry '" + entry + "' by instance "
                        + existing.get() + " in zone '" + other.name() + "': a name is one instance across all the"
                        + " entry's zones; to move it to zone '" + target.name() + "', delete " + existing.get()
                        + " first (egressctl apply does so), or choose another name");
            }
        }
    }

    /**
     * The ID of this entry's domain of that name on {@code host}, if there is one. A domain of
     * another entry, of no entry, or with unreadable metadata is not this entry's, as listManaged
     * sees it too.
     */
    private Optional<String> thisEntrysDomain(LibvirtHost libvirt, HostSettings host, String name) {
        Optional<Domain> domain = LibvirtSteps.step("looking up domain " + name, () -> libvirt.lookupDomain(name));
        if (domain.isEmpty()) {
            return Optional.empty();
        }
        Optional<InstanceMetadata> metadata;
        try {
            metadata = InstanceInspector.metadataOf(libvirt, domain.get());
        } catch (IllegalArgumentException unreadable) {
            LOG.warn("domain {} on host {} has egress-proxies metadata that cannot be read ({}); it is not counted as"
                    + " this entry's instance", name, host.name(), unreadable.getMessage());
            return Optional.empty();
        }
        return metadata.filter(ours -> ours.createdThrough(entry))
                .map(ours -> new ProviderId(host.name(), name).toString());
    }

    /** What the first look at the host found: a domain that exists (and now runs), or the base's path. */
    private record Survey(boolean domainExisted, Optional<String> basePath) {
    }

    private Survey survey(LibvirtHost libvirt, Placements.Resolved<I> placement, String name, Call call) {
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

    /**
     * Refuses a domain that holds the name but carries no metadata of this platform, one whose
     * metadata cannot be read, and one that another entry or no entry created ({@link EntryScope}).
     */
    private static void requireManaged(LibvirtHost libvirt, HostSettings host, Domain domain, Call call) {
        InstanceMetadata metadata = InstanceInspector.readableMetadataOf(libvirt, host, domain, call)
                .orElseThrow(() -> call.permanent("a domain named '" + domain.name() + "' exists on host '"
                        + host.name() + "' that egress-proxies did not create: remove or rename it, or choose another"
                        + " name"));
        EntryScope.requireThisEntry(metadata, host, domain.name(), call);
    }

    private void build(LibvirtHost libvirt, Placements.Resolved<I> placement, CreateRequest request, String basePath,
                       byte[] seed, Call call) {
        String name = request.name();
        StoragePool pool = Pools.require(libvirt, placement.host(), call);
        List<String> volumePaths = new ArrayList<>();
        Domain domain = null;
        try {
            StorageVolume overlay = ensureOverlay(libvirt, pool, name, basePath, placement.image().format(), call);
            volumePaths.add(overlay.path());
            call.checkDeadline();
            StorageVolume seedVolume = replaceSeed(libvirt, pool, name, seed);
            volumePaths.add(seedVolume.path());
            call.checkDeadline();
            String xml = DomainXml.of(definition(placement, request, overlay.path(), seedVolume.path()));
            domain = LibvirtSteps.step("defining domain " + name, () -> libvirt.defineDomain(xml));
            call.checkDeadline();
            start(libvirt, domain);
        } catch (LibvirtException failure) {
            if (LibvirtErrors.kindOf(failure) != ErrorKind.PERMANENT) {
                throw failure;
            }
            String removal = removeWhatThisCreateMade(libvirt, pool, name, domain, failure);
            throw call.failure(ErrorKind.PERMANENT, HostSettingFaults.describe(failure, placement.host(),
                    placements.hostIndex(placement.host()), volumePaths) + removal, failure);
        } catch (IllegalArgumentException unusable) {
            removeWhatThisCreateMade(libvirt, pool, name, domain, unusable);
            throw unusable;
        }
    }

    /**
     * Removes the domain this create defined (with its NVRAM) and the instance's overlay and seed,
     * after a failure that every retry would repeat, so the create after a fixed configuration
     * starts clean; a domain that existed before the create never comes here. The removal is best
     * effort: what it could not remove is named in the result, a clause for the error's detail.
     */
    private String removeWhatThisCreateMade(LibvirtHost libvirt, StoragePool pool, String name, Domain domain,
                                            RuntimeException failure) {
        try {
            if (domain != null) {
                LibvirtSteps.run("undefining domain " + name, () -> libvirt.undefineDomain(domain));
            }
            Volumes.deleteIfPresent(libvirt, pool, VolumeNames.overlay(entry, name));
            Volumes.deleteIfPresent(libvirt, pool, VolumeNames.seed(entry, name));
            return "; nothing of instance " + name + " was left on the host";
        } catch (RuntimeException cleanup) {
            failure.addSuppressed(cleanup);
            LOG.warn("could not remove what the failed create of {} made: {}", name, cleanup.toString());
            return "; removing what this create made failed (" + cleanup.getMessage() + "): delete the instance"
                    + " before creating it again";
        }
    }

    /**
     * The domain of the request on its host: the machine type's size, the host's platform and bridge,
     * the image's firmware.
     */
    private DomainDefinition definition(Placements.Resolved<I> placement, CreateRequest request, String overlayPath,
                                        String seedPath) {
        HostSettings host = placement.host();
        MachineSize machineType = placement.machineType();
        return new DomainDefinition(request.name(), machineType.memoryMiB(), machineType.vcpus(), host.platform(),
                placement.image().uefi(), overlayPath, seedPath, host.bridge(),
                new InstanceMetadata(request.uid(), clock.instant(), Optional.of(entry),
                        request.placement().machineType(), recordedImage(request.placement().image()),
                        request.cloudInitSha256()));
    }

    /**
     * The image as the request named it, for the domain's metadata; {@code ""} (unknown) for a URL
     * with user information, a query or a fragment, where credentials and signed tokens live: every
     * reader of the hypervisor's domains, and of {@code get}, would see them.
     */
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

    /** Creates the overlay, or returns the one a crashed create left: creation is atomic, so it is complete. */
    private StorageVolume ensureOverlay(LibvirtHost libvirt, StoragePool pool, String name, String basePath,
                                       DiskFormat baseFormat, Call call) {
        String overlayName = VolumeNames.overlay(entry, name);
        String xml = VolumeXml.overlay(overlayName, diskSizeGib, basePath, baseFormat);
        try {
            return LibvirtSteps.step("creating overlay volume " + overlayName,
                    () -> libvirt.createVolume(pool, xml));
        } catch (LibvirtException exists) {
            if (!exists.is(LibvirtErrorCode.STORAGE_VOLUME_EXISTS)) {
                throw exists;
            }
        }
        LOG.debug("reusing overlay volume {} that an earlier create left", overlayName);
        return LibvirtSteps.step("looking up overlay volume " + overlayName,
                        () -> libvirt.lookupVolume(pool, overlayName))
                .orElseThrow(() -> call.transientFailure("overlay volume " + overlayName + " existed a moment ago and"
                        + " is gone now, so a delete ran at the same time; retry", null));
    }

    /** Deletes whatever seed volume is there and uploads a fresh one. */
    private StorageVolume replaceSeed(LibvirtHost libvirt, StoragePool pool, String name, byte[] seed) {
        String seedName = VolumeNames.seed(entry, name);
        Volumes.deleteIfPresent(libvirt, pool, seedName);
        StorageVolume volume = LibvirtSteps.step("creating seed volume " + seedName,
                () -> libvirt.createVolume(pool, VolumeXml.raw(seedName, seed.length)));
        LibvirtSteps.run("uploading seed volume " + seedName,
                () -> libvirt.uploadVolume(volume, new ByteArrayInputStream(seed), seed.length));
        return volume;
    }

    /**
     * Starts a domain an earlier create defined. When libvirt refuses it for good, the domain is
     * left as it is (it existed before this create), and the error says that it keeps the
     * settings it was defined with.
     */
    private void startExisting(LibvirtHost libvirt, HostSettings host, Domain domain, Call call) {
        try {
            startUnlessActive(libvirt, domain);
        } catch (LibvirtException failure) {
            if (LibvirtErrors.kindOf(failure) != ErrorKind.PERMANENT) {
                throw failure;
            }
            throw call.failure(ErrorKind.PERMANENT, HostSettingFaults.describe(failure, host,
                    placements.hostIndex(host), List.of()) + "; domain " + domain.name() + " was defined by an earlier"
                    + " create and keeps the settings it was defined with: after fixing them, delete the instance"
                    + " and create it again", failure);
        }
    }

    private static void startUnlessActive(LibvirtHost libvirt, Domain domain) {
        if (!LibvirtSteps.step("reading the state of domain " + domain.name(), () -> libvirt.domainState(domain))
                .isActive()) {
            start(libvirt, domain);
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

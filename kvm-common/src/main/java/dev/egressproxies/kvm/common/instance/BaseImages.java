package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.BaseImage;
import dev.egressproxies.api.PrunedImage;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrorCode;
import dev.egressproxies.kvm.common.libvirt.LibvirtException;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.Domain;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StoragePool;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StorageVolume;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import dev.egressproxies.kvm.common.xml.DomainXml;
import dev.egressproxies.kvm.common.xml.VolumeXml;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The base images in one host's pool, as an operator manages them: an inventory of the bases with
 * the domains and volumes that back on them and their fetch leases, and the prune that deletes the
 * unused ones under their fetch lease. {@code check} reports from the same inventory
 * ({@link PoolLeftovers}); a pull is a create's own ensure of the base ({@link InstanceCreator#ensureBase}).
 *
 * <p>A prune takes a base's fetch lease ({@link PoolLeases#FETCH}), the lease a create holds while it
 * fetches that base, then reads every domain's disks and every volume's backing store again, and
 * deletes marker and base only when nothing backs on it; then it releases the lease. A create that
 * found the base complete before the prune checks, once its overlay exists, that no lease holds the
 * base and that the base is still there ({@link InstanceCreator}); so either the prune's second
 * reading sees the overlay, or the create sees the lease or the base gone and fetches it anew.
 */
final class BaseImages {
    private static final Logger LOG = LoggerFactory.getLogger(BaseImages.class);

    private final BaseImageStrategy<?> images;
    private final PoolLeases leases;
    private final Clock clock;

    /**
     * @param leases fetch leases of their own (never the backend's fetch leases), so a create of this
     *               process finds a prune's lease live, as any other process's
     */
    BaseImages(BaseImageStrategy<?> images, PoolLeases leases, Clock clock) {
        this.images = Objects.requireNonNull(images, "images");
        this.leases = Objects.requireNonNull(leases, "leases");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** The host's bases, sorted by name; PERMANENT when its pool is missing or stopped. */
    List<BaseImage> list(LibvirtHost libvirt, HostSettings host, Call call) {
        StoragePool pool = Pools.require(libvirt, host, call);
        Pools.requireRunning(libvirt, pool, host, call);
        return inventory(libvirt, pool, host, call).bases().stream().map(base -> base.describe(host)).toList();
    }

    /**
     * Deletes (or, with {@code dryRun}, names) the host's bases that nothing backs on, no live lease
     * holds, and that are older than {@code olderThan}; in a host call of {@code hosts}. Leases taken
     * are released after that call, whatever happened in it.
     */
    List<PrunedImage> prune(HostPool hosts, HostSettings host, Duration olderThan, boolean dryRun, Call call) {
        List<PoolLeases.Held> taken = new ArrayList<>();
        try {
            return hosts.call(host, call, libvirt -> prune(libvirt, host, olderThan, dryRun, call, taken));
        } finally {
            taken.forEach(held -> held.release(call));
        }
    }

    private List<PrunedImage> prune(LibvirtHost libvirt, HostSettings host, Duration olderThan, boolean dryRun,
                                    Call call, List<PoolLeases.Held> taken) {
        StoragePool pool = Pools.require(libvirt, host, call);
        Pools.requireRunning(libvirt, pool, host, call);
        Instant cutOff = clock.instant().minus(olderThan);
        List<Base> candidates = inventory(libvirt, pool, host, call).bases().stream()
                .filter(base -> base.users().isEmpty() && !base.leaseHeld())
                .filter(base -> olderThan.isZero() || base.createdAt().map(cutOff::isAfter).orElse(false))
                .toList();
        if (dryRun) {
            return candidates.stream().map(base -> base.pruned(host)).toList();
        }
        Map<String, Base> leased = new TreeMap<>();
        for (Base base : candidates) {
            call.checkDeadline();
            PoolLeases.Attempt attempt = leases.attempt(libvirt, pool, host, base.name(),
                    "pruning base image volume " + base.name(), call);
            if (attempt.took()) {
                taken.add(attempt.held());
                leased.put(base.name(), base);
            } else {
                LOG.info("not pruning base image volume {} on host {}: {} holds its fetch lease", base.name(),
                        host.name(), attempt.holder().holder().describe());
            }
        }
        if (leased.isEmpty()) {
            return List.of();
        }
        // Read again under the leases: a create that backs on a base from now on sees its lease or its absence.
        Map<String, Base> now = new TreeMap<>();
        inventory(libvirt, pool, host, call).bases().forEach(base -> now.put(base.name(), base));
        List<PrunedImage> pruned = new ArrayList<>();
        for (Base base : leased.values()) {
            call.checkDeadline();
            Base current = now.get(base.name());
            if (current == null) {
                continue;
            }
            if (!current.users().isEmpty()) {
                LOG.info("not pruning base image volume {} on host {}: {} began backing on it", base.name(),
                        host.name(), String.join(", ", current.users()));
                continue;
            }
            // The marker first, so that no moment shows a marker next to a missing base.
            images.markerOfBase(base.name()).ifPresent(marker -> Volumes.deleteIfPresent(libvirt, pool, marker));
            Volumes.deleteIfPresent(libvirt, pool, base.name());
            LOG.info("pruned base image volume {} on host {} ({} bytes)", base.name(), host.name(),
                    current.allocatedBytes());
            pruned.add(current.pruned(host));
        }
        return pruned;
    }

    /**
     * The pool's bases with what backs on them, and its fetch leases: reads the pool's volumes, every
     * domain's disks, and the XML of every volume that is not a marker or lease, a few at once.
     */
    Inventory inventory(LibvirtHost libvirt, StoragePool pool, HostSettings host, Call call) {
        List<String> names = LibvirtSteps.step("listing the volumes of storage pool " + host.pool(),
                () -> libvirt.listVolumeNames(pool));
        Set<String> baseNames = new TreeSet<>();
        Set<String> markers = new HashSet<>();
        for (String name : names) {
            images.markerOfBase(name).ifPresent(marker -> {
                baseNames.add(name);
                markers.add(marker);
            });
        }
        List<String> leaseNames = leaseNames(names);
        List<String> described = names.stream().filter(name -> !markers.contains(name) && !leaseNames.contains(name))
                .toList();
        call.checkDeadline();
        List<Domain> domains = LibvirtSteps.step("listing the domains", libvirt::listAllDomains);
        List<Optional<Described>> volumes = HostReads.each(host, call, described,
                name -> describeVolume(libvirt, pool, name));
        List<Optional<Set<String>>> disks = HostReads.each(host, call, domains, domain -> diskFiles(libvirt, domain));
        Map<String, String> backingOf = new TreeMap<>();
        Map<String, Described> byName = new TreeMap<>();
        volumes.forEach(found -> found.ifPresent(volume -> {
            byName.put(volume.name(), volume);
            volume.description().backingPath().ifPresent(backing -> backingOf.put(volume.path(), backing));
        }));
        Set<String> namesSet = new HashSet<>(names);
        List<Base> bases = new ArrayList<>();
        for (String name : baseNames) {
            Described volume = byName.get(name);
            if (volume == null) {
                continue;
            }
            Set<String> users = new TreeSet<>();
            Set<String> claimed = new HashSet<>();
            for (int index = 0; index < domains.size(); index++) {
                Set<String> files = disks.get(index).orElse(Set.of());
                for (String file : files) {
                    if (file.equals(volume.path()) || volume.path().equals(backingOf.get(file))) {
                        users.add(domains.get(index).name());
                        claimed.add(file);
                    }
                }
            }
            byName.values().stream().filter(other -> volume.path().equals(backingOf.get(other.path()))
                    && !claimed.contains(other.path())).forEach(other -> users.add("volume " + other.name()));
            String marker = images.markerOfBase(name).orElseThrow();
            BaseFacts facts = images.facts(libvirt, pool, name, namesSet.contains(marker));
            String leaseName = PoolLeases.volumeName(name);
            Optional<LeaseFound> lease = leaseNames.contains(leaseName)
                    ? Optional.of(readLease(libvirt, pool, leaseName)) : Optional.empty();
            bases.add(new Base(name, volume.path(), facts, namesSet.contains(marker), volume.description(),
                    List.copyOf(users), lease));
        }
        List<LeaseFound> found = new ArrayList<>();
        for (String name : leaseNames) {
            found.add(bases.stream().flatMap(base -> base.lease().stream()).filter(lease -> lease.name().equals(name))
                    .findFirst().orElseGet(() -> readLease(libvirt, pool, name)));
        }
        bases.sort(Comparator.comparing(Base::name));
        return new Inventory(List.copyOf(bases), List.copyOf(found), List.copyOf(names),
                domains.stream().map(Domain::name).collect(Collectors.toUnmodifiableSet()));
    }

    private LeaseFound readLease(LibvirtHost libvirt, StoragePool pool, String name) {
        Optional<PoolLease> lease = PoolLeases.readLease(libvirt, pool, name);
        return new LeaseFound(name, lease, lease.flatMap(leases::staleness));
    }

    /** The names of this backend's fetch leases among {@code names}, sorted. */
    List<String> leaseNames(List<String> names) {
        String suffix = PoolLeases.volumeName("");
        return names.stream().filter(name -> name.endsWith(suffix)
                        && images.markerOfBase(name.substring(0, name.length() - suffix.length())).isPresent())
                .sorted().toList();
    }

    private static Optional<Described> describeVolume(LibvirtHost libvirt, StoragePool pool, String name) {
        Optional<StorageVolume> volume = Volumes.lookup(libvirt, pool, name);
        if (volume.isEmpty()) {
            return Optional.empty();
        }
        try {
            String xml = LibvirtSteps.step("reading the XML of volume " + name, () -> libvirt.volumeXml(volume.get()));
            return Optional.of(new Described(name, volume.get().path(), VolumeXml.describe(xml)));
        } catch (LibvirtException vanished) {
            if (vanished.is(LibvirtErrorCode.NO_STORAGE_VOLUME)) {
                return Optional.empty();
            }
            throw vanished;
        } catch (IllegalArgumentException unreadable) {
            LOG.debug("the XML of volume {} is unreadable, so its backing store is unknown: {}", name,
                    unreadable.getMessage());
            return Optional.of(new Described(name, volume.get().path(),
                    new VolumeXml.Description(0, 0, Optional.empty(), Optional.empty())));
        }
    }

    private static Optional<Set<String>> diskFiles(LibvirtHost libvirt, Domain domain) {
        try {
            return Optional.of(DomainXml.diskFiles(LibvirtSteps.step("reading the XML of domain " + domain.name(),
                    () -> libvirt.domainXml(domain))));
        } catch (LibvirtException vanished) {
            if (vanished.is(LibvirtErrorCode.NO_DOMAIN)) {
                return Optional.empty();
            }
            throw vanished;
        } catch (IllegalArgumentException unreadable) {
            LOG.debug("the XML of domain {} is unreadable, so its disks are unknown: {}", domain.name(),
                    unreadable.getMessage());
            return Optional.empty();
        }
    }

    /** A volume, its path and what its XML says. */
    private record Described(String name, String path, VolumeXml.Description description) {
    }

    /**
     * What a pool holds of bases: each with its users, and every fetch lease of this backend's bases;
     * with the pool's volume names and the host's domain names it was read from.
     */
    record Inventory(List<Base> bases, List<LeaseFound> leases, List<String> volumes, Set<String> domains) {
        List<Base> unused() {
            return bases.stream().filter(base -> base.users().isEmpty()).toList();
        }
    }

    /** One base in a pool. */
    record Base(String name, String path, BaseFacts facts, boolean marked, VolumeXml.Description description,
                List<String> users, Optional<LeaseFound> lease) {
        Optional<Instant> createdAt() {
            return description.createdAt();
        }

        long allocatedBytes() {
            return description.allocationBytes();
        }

        /** A live lease: a fetch or a prune is under way (or its holder died on another machine). */
        boolean leaseHeld() {
            return lease.map(found -> found.lease().isEmpty() || found.stale().isEmpty()).orElse(false);
        }

        BaseImage describe(HostSettings host) {
            BaseImage.LeaseState state = lease.map(found -> leaseHeld() ? BaseImage.LeaseState.HELD
                    : BaseImage.LeaseState.STALE).orElse(BaseImage.LeaseState.NONE);
            return new BaseImage(host.name(), name, facts.key(), facts.source(), facts.sha256(), facts.format(),
                    description.capacityBytes(), description.allocationBytes(), createdAt().orElse(null), users,
                    state, lease.map(LeaseFound::summary).orElse(""), facts.legacy());
        }

        PrunedImage pruned(HostSettings host) {
            return new PrunedImage(host.name(), name, facts.key(), description.allocationBytes(),
                    createdAt().orElse(null));
        }
    }

    /** A fetch lease found in a pool: the lease, if whole, and why it is stale, if it is. */
    record LeaseFound(String name, Optional<PoolLease> lease, Optional<String> stale) {
        /** For the images listing: who holds it until when, or why it is stale. */
        String summary() {
            if (lease.isEmpty()) {
                return "being written (or left empty by a crash)";
            }
            if (stale.isPresent()) {
                return "stale: " + stale.get();
            }
            return "held by " + lease.get().holder().describe() + " until " + lease.get().expires()
                    + (lease.get().pruning() ? ", pruning it" : ", fetching it");
        }

        /** For check: what it is, and the command that removes it. */
        String describe(String pool) {
            String remove = "remove it with 'virsh vol-delete --pool " + pool + " " + name + "'";
            if (lease.isEmpty()) {
                return name + " holds no whole lease (being written right now, or left empty by a crash); the next"
                        + " fetch of its image takes it over, or, when no create runs, " + remove;
            }
            if (stale.isPresent()) {
                return name + " of " + lease.get().holder().describe() + " is stale (" + stale.get() + "); the next"
                        + " create of its image removes it, or " + remove;
            }
            return name + " is held by " + lease.get().holder().describe() + " until " + lease.get().expires()
                    + ": a fetch of its image is under way (or its holder died on another machine; it is stale"
                    + " then); if no create runs, " + remove;
        }
    }
}

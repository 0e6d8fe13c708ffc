package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.PreflightCheck;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrorCode;
import dev.egressproxies.kvm.common.libvirt.LibvirtException;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StoragePool;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StorageVolume;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import dev.egressproxies.kvm.common.xml.VolumeXml;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What base images leave in a host's pool for an operator, found without changing anything: bases
 * no overlay backs on (superseded bases stay for their VMs, and nothing removes them later) and leases.
 */
final class PoolLeftovers {
    private static final Logger LOG = LoggerFactory.getLogger(PoolLeftovers.class);

    private final BaseImageStrategy<?> images;
    private final PoolLeases leases;

    PoolLeftovers(BaseImageStrategy<?> images, PoolLeases leases) {
        this.images = images;
        this.leases = leases;
    }

    List<PreflightCheck> preflight(List<HostSettings> hosts, HostPool caller, Call call) {
        List<PreflightCheck> checks = new ArrayList<>();
        for (HostSettings host : hosts) {
            String where = " in pool " + host.pool() + " on host " + host.name();
            Optional<Inventory> inventory;
            try {
                inventory = caller.call(host, call, libvirt -> inventory(libvirt, host));
            } catch (ProviderException failure) {
                // A warning only: what keeps the host from working fails its connection or pool check.
                checks.add(PreflightCheck.warning("unused base images and fetch leases" + where,
                        "not checked: " + failure.detail()));
                continue;
            }
            // A missing or stopped pool is the pool check's to report.
            inventory.ifPresent(found -> {
                checks.add(unusedBasesCheck(host, found, "unused base images" + where));
                checks.add(leasesCheck(host, found, "fetch leases" + where));
            });
        }
        return checks;
    }

    /** Logs a warning for each stale fetch lease of this backend's bases; changes nothing. */
    void warnAboutLeases(LibvirtHost libvirt, StoragePool pool, HostSettings host) {
        for (String name : leaseNames(LibvirtSteps.step("listing the volumes of storage pool " + host.pool(),
                () -> libvirt.listVolumeNames(pool)))) {
            // One still being written (no whole lease yet) is most likely a fetch starting right now.
            Optional<String> stale = PoolLeases.readLease(libvirt, pool, name).flatMap(leases::staleness);
            stale.ifPresent(why -> LOG.warn("the fetch lease {} is left in storage pool {} on host {} ({}); the next"
                    + " create of its image removes it, or remove it when no create runs: virsh vol-delete --pool {}"
                    + " {}", name, host.pool(), host.name(), why, host.pool(), name));
        }
    }

    private Optional<Inventory> inventory(LibvirtHost libvirt, HostSettings host) {
        Optional<StoragePool> pool = Pools.find(libvirt, host);
        if (pool.isEmpty() || !LibvirtSteps.step("reading storage pool " + host.pool(),
                () -> libvirt.poolInfo(pool.get())).running()) {
            return Optional.empty();
        }
        List<String> names = LibvirtSteps.step("listing the volumes of storage pool " + host.pool(),
                () -> libvirt.listVolumeNames(pool.get()));
        List<String> bases = names.stream().filter(name -> images.markerOfBase(name).isPresent()).sorted().toList();
        Set<String> markers = bases.stream().map(base -> images.markerOfBase(base).orElseThrow())
                .collect(Collectors.toSet());
        List<String> leaseNames = leaseNames(names);
        Set<String> backings = new HashSet<>();
        for (String name : names) {
            if (!bases.contains(name) && !markers.contains(name) && !leaseNames.contains(name)) {
                backingPath(libvirt, pool.get(), name).ifPresent(backings::add);
            }
        }
        List<String> unused = bases.stream().filter(base -> Volumes.lookup(libvirt, pool.get(), base)
                .filter(volume -> !backings.contains(volume.path())).isPresent()).toList();
        List<LeaseFound> found = new ArrayList<>();
        for (String name : leaseNames) {
            Optional<PoolLease> lease = PoolLeases.readLease(libvirt, pool.get(), name);
            found.add(new LeaseFound(name, lease, lease.flatMap(leases::staleness)));
        }
        return Optional.of(new Inventory(bases.size(), unused, found));
    }

    private List<String> leaseNames(List<String> names) {
        String suffix = PoolLeases.volumeName("");
        return names.stream().filter(name -> name.endsWith(suffix)
                        && images.markerOfBase(name.substring(0, name.length() - suffix.length())).isPresent())
                .sorted().toList();
    }

    private PreflightCheck unusedBasesCheck(HostSettings host, Inventory inventory, String name) {
        if (inventory.unused().isEmpty()) {
            return PreflightCheck.passed(name, inventory.bases() == 0 ? "none: no base image is cached"
                    : "none: an overlay backs on each of the " + inventory.bases() + " cached base images");
        }
        String commands = inventory.unused().stream()
                .map(base -> "'virsh vol-delete --pool " + host.pool() + " " + base + "' and 'virsh vol-delete --pool "
                        + host.pool() + " " + images.markerOfBase(base).orElseThrow() + "'")
                .collect(Collectors.joining("; "));
        return PreflightCheck.warning(name, inventory.unused().size() + " of " + inventory.bases() + " cached base"
                + " images have no overlay backing on them: " + String.join(", ", inventory.unused()) + ". They stay"
                + " until removed (a base is never replaced, only superseded when its image's source changes). A"
                + " create of their image would use them again; to free the space, remove each with its marker"
                + " while no create runs: " + commands);
    }

    private static PreflightCheck leasesCheck(HostSettings host, Inventory inventory, String name) {
        return inventory.leases().isEmpty() ? PreflightCheck.passed(name, "none left")
                : PreflightCheck.warning(name, inventory.leases().stream().map(lease -> lease.describe(host.pool()))
                        .collect(Collectors.joining("; ")));
    }

    private static Optional<String> backingPath(LibvirtHost libvirt, StoragePool pool, String name) {
        Optional<StorageVolume> volume = Volumes.lookup(libvirt, pool, name);
        if (volume.isEmpty()) {
            return Optional.empty();
        }
        try {
            return VolumeXml.backingPath(LibvirtSteps.step("reading the XML of volume " + name,
                    () -> libvirt.volumeXml(volume.get())));
        } catch (LibvirtException vanished) {
            if (vanished.is(LibvirtErrorCode.NO_STORAGE_VOLUME)) {
                return Optional.empty();
            }
            throw vanished;
        } catch (IllegalArgumentException unreadable) {
            LOG.debug("the XML of volume {} is unreadable, so its backing store is unknown: {}", name,
                    unreadable.getMessage());
            return Optional.empty();
        }
    }

    private record Inventory(int bases, List<String> unused, List<LeaseFound> leases) {
    }

    private record LeaseFound(String name, Optional<PoolLease> lease, Optional<String> stale) {
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

package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.PreflightCheck;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StoragePool;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a host's pool holds that nothing uses, for an operator, found without changing anything:
 * bases no overlay backs on (superseded bases stay for their VMs until {@code egressctl images
 * prune}) and leases, from the inventory of {@link BaseImages}; and overlays and seeds of this
 * entry whose domain is not on the host, which a cut-off create leaves.
 */
final class PoolLeftovers {
    private static final Logger LOG = LoggerFactory.getLogger(PoolLeftovers.class);

    private final String entry;
    private final BaseImages bases;
    private final PoolLeases leases;

    PoolLeftovers(String entry, BaseImages bases, PoolLeases leases) {
        this.entry = entry;
        this.bases = bases;
        this.leases = leases;
    }

    List<PreflightCheck> preflight(List<HostSettings> hosts, HostPool caller, Call call) {
        List<PreflightCheck> checks = new ArrayList<>();
        for (HostSettings host : hosts) {
            String where = " in pool " + host.pool() + " on host " + host.name();
            Optional<BaseImages.Inventory> inventory;
            try {
                inventory = caller.call(host, call, libvirt -> inventory(libvirt, host, call));
            } catch (ProviderException failure) {
                // A warning only: what keeps the host from working fails its connection or pool check.
                checks.add(PreflightCheck.warning("unused base images and fetch leases" + where,
                        "not checked: " + failure.detail()));
                continue;
            }
            // A missing or stopped pool is the pool check's to report.
            inventory.ifPresent(found -> {
                checks.add(unusedBasesCheck(found, "unused base images" + where));
                checks.add(leasesCheck(host, found, "fetch leases" + where));
                checks.add(strayCheck(host, found, "instance volumes without their domain" + where));
            });
        }
        return checks;
    }

    /** Logs a warning for each stale fetch lease of this backend's bases; changes nothing. */
    void warnAboutLeases(LibvirtHost libvirt, StoragePool pool, HostSettings host) {
        for (String name : bases.leaseNames(LibvirtSteps.step("listing the volumes of storage pool " + host.pool(),
                () -> libvirt.listVolumeNames(pool)))) {
            // One still being written (no whole lease yet) is most likely a fetch starting right now.
            Optional<String> stale = PoolLeases.readLease(libvirt, pool, name).flatMap(leases::staleness);
            stale.ifPresent(why -> LOG.warn("the fetch lease {} is left in storage pool {} on host {} ({}); the next"
                    + " create of its image removes it, or remove it when no create runs: virsh vol-delete --pool {}"
                    + " {}", name, host.pool(), host.name(), why, host.pool(), name));
        }
    }

    private Optional<BaseImages.Inventory> inventory(LibvirtHost libvirt, HostSettings host, Call call) {
        Optional<StoragePool> pool = Pools.find(libvirt, host);
        if (pool.isEmpty() || !LibvirtSteps.step("reading storage pool " + host.pool(),
                () -> libvirt.poolInfo(pool.get())).running()) {
            return Optional.empty();
        }
        return Optional.of(bases.inventory(libvirt, pool.get(), host, call));
    }

    /** This entry's overlays and seeds whose instance has no domain on the host. */
    private PreflightCheck strayCheck(HostSettings host, BaseImages.Inventory inventory, String name) {
        List<String> strays = inventory.volumes().stream().filter(volume -> InstanceCreator.instanceOfVolume(entry,
                volume).filter(instance -> !inventory.domains().contains(instance)).isPresent()).sorted().toList();
        if (strays.isEmpty()) {
            return PreflightCheck.passed(name, "none: every overlay and seed of this entry has its domain");
        }
        return PreflightCheck.warning(name, strays.size() + " volumes have no domain of their instance's name on"
                + " this host: " + String.join(", ", strays) + ". A create that was cut off (its process killed"
                + " before it defined the domain) leaves them; the next create of that name reuses or removes"
                + " them. If no create of it is running, free the space with 'virsh vol-delete --pool "
                + host.pool() + " VOLUME' for each");
    }

    private PreflightCheck unusedBasesCheck(BaseImages.Inventory inventory, String name) {
        List<String> unused = inventory.unused().stream().map(BaseImages.Base::name).toList();
        int cached = inventory.bases().size();
        if (unused.isEmpty()) {
            return PreflightCheck.passed(name, cached == 0 ? "none: no base image is cached"
                    : "none: an overlay backs on each of the " + cached + " cached base images");
        }
        return PreflightCheck.warning(name, unused.size() + " of " + cached + " cached base"
                + " images have no overlay backing on them: " + String.join(", ", unused) + ". They stay"
                + " until removed (a base is never replaced, only superseded when its image's source changes). A"
                + " create of their image would use them again; to free the space, run 'egressctl images prune"
                + " --provider " + entry + "' (with --dry-run first to see what it deletes)");
    }

    private static PreflightCheck leasesCheck(HostSettings host, BaseImages.Inventory inventory, String name) {
        return inventory.leases().isEmpty() ? PreflightCheck.passed(name, "none left")
                : PreflightCheck.warning(name, inventory.leases().stream().map(lease -> lease.describe(host.pool()))
                        .collect(Collectors.joining("; ")));
    }
}

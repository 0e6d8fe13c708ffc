package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.Operation;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.libvirt.Domain;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrorCode;
import dev.egressproxies.kvm.common.libvirt.LibvirtException;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import dev.egressproxies.kvm.common.libvirt.StoragePool;
import dev.egressproxies.kvm.common.xml.InstanceMetadata;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The delete operation, which tears an instance down, idempotent at every step: a domain that is
 * not running is not destroyed, a domain that is gone is not undefined, and the overlay and seed
 * are removed by name even when the domain is already gone, so what a create that crashed before
 * defining the domain left is cleaned up too; those names include the entry ({@link VolumeNames}),
 * so another entry's volumes of an instance of the same name are never touched. A missing pool means there is nothing left to
 * remove: refusing to finish over a pool that no longer exists would keep the instance's owner
 * from ever letting go of it. The undefine removes managed-save, snapshot metadata and NVRAM too
 * (the adapter's flags), so leftover state never blocks it. Fetch leases of base images left in the
 * pool are logged as warnings ({@link PoolLeftovers}). A domain that egress-proxies did not
 * create, or that another entry or no entry created ({@link EntryScope}), is refused, PERMANENT,
 * and left alone with its volumes.
 */
final class InstanceRemover {
    private static final Logger LOG = LoggerFactory.getLogger(InstanceRemover.class);

    private final String entry;
    private final Placements<?> placements;
    private final HostCaller hosts;
    private final KeyedLocks instanceLocks;
    private final PoolLeftovers leftovers;

    InstanceRemover(String entry, Placements<?> placements, HostCaller hosts, KeyedLocks instanceLocks,
                    PoolLeftovers leftovers) {
        this.entry = entry;
        this.placements = placements;
        this.hosts = hosts;
        this.instanceLocks = instanceLocks;
        this.leftovers = leftovers;
    }

    /** See {@link dev.egressproxies.api.Provider#delete}. */
    void delete(String id, Deadline deadline) {
        ProviderId parsed = ProviderId.parse(id, Operation.DELETE, entry);
        HostSettings host = placements.hostOf(parsed, Operation.DELETE);
        Call call = new Call(entry, Operation.DELETE, id, deadline);
        instanceLocks.withLock(id, call, "another create or delete of " + id, () -> hosts.call(host, call, libvirt -> {
            removeDomain(libvirt, host, parsed.name(), call);
            call.checkDeadline();
            removeVolumes(libvirt, host, parsed.name());
            return null;
        }));
    }

    private static void removeDomain(LibvirtHost libvirt, HostSettings host, String name, Call call) {
        Optional<Domain> found = LibvirtSteps.step("looking up domain " + name, () -> libvirt.lookupDomain(name));
        if (found.isEmpty()) {
            LOG.debug("domain {} is already gone", name);
            return;
        }
        Domain domain = found.get();
        // Someone else's VM is never destroyed through an ID that merely names it, nor another entry's.
        InstanceMetadata metadata = InstanceInspector.readableMetadataOf(libvirt, host, domain, call)
                .orElseThrow(() -> call.permanent("domain '" + name + "' on host '" + host.name() + "' was not created"
                        + " by egress-proxies, so it is not deleted: remove it with virsh if it should go"));
        EntryScope.requireThisEntry(metadata, host, name, call);
        try {
            LibvirtSteps.run("destroying domain " + name, () -> libvirt.destroyDomain(domain));
        } catch (LibvirtException notRunning) {
            if (notRunning.is(LibvirtErrorCode.NO_DOMAIN)) {
                return;
            }
            // libvirt's answer to destroying a domain that does not run.
            if (!notRunning.is(LibvirtErrorCode.OPERATION_INVALID)) {
                throw notRunning;
            }
        }
        try {
            LibvirtSteps.run("undefining domain " + name, () -> libvirt.undefineDomain(domain));
        } catch (LibvirtException gone) {
            if (!gone.is(LibvirtErrorCode.NO_DOMAIN)) {
                throw gone;
            }
        }
    }

    private void removeVolumes(LibvirtHost libvirt, HostSettings host, String name) {
        Optional<StoragePool> pool = LibvirtSteps.step("looking up storage pool " + host.pool(),
                () -> libvirt.lookupPool(host.pool()));
        if (pool.isEmpty()) {
            LOG.info("storage pool {} does not exist on host {}, so no volumes of {} are left to delete",
                    host.pool(), host.name(), name);
            return;
        }
        Volumes.deleteIfPresent(libvirt, pool.get(), VolumeNames.overlay(entry, name));
        Volumes.deleteIfPresent(libvirt, pool.get(), VolumeNames.seed(entry, name));
        try {
            leftovers.warnAboutLeases(libvirt, pool.get(), host);
        } catch (LibvirtException unlisted) {
            if (unlisted.isTransportFailure()) {
                throw unlisted;
            }
            // The instance is gone; the leases are only reported, and check reports them too.
            LOG.debug("could not look for fetch leases left in storage pool {} on host {}: {}", host.pool(),
                    host.name(), unlisted.toString());
        }
    }
}

package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.Operation;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.libvirt.Domain;
import dev.egressproxies.kvm.common.libvirt.LibvirtException;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import dev.egressproxies.kvm.common.xml.InstanceMetadata;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listManaged operation, which lists the instances this platform created on every host of
 * the entry: the domains whose metadata carries the platform's element.
 *
 * <p>All or nothing per host: a host that cannot be listed fails the whole call, so orphan
 * collection never acts on a partial view of the fleet. A single domain that cannot be read
 * (vanished between listing and reading, unreadable metadata) is skipped instead, which is safe in
 * the same direction: a domain missing from the list is never collected. A failure that means the
 * link broke is not a domain's fault, so it fails the host.
 */
final class ManagedInstanceLister {
    private static final Logger LOG = LoggerFactory.getLogger(ManagedInstanceLister.class);

    private final String entry;
    private final List<HostSettings> hostList;
    private final HostCaller hosts;

    ManagedInstanceLister(String entry, List<HostSettings> hostList, HostCaller hosts) {
        this.entry = entry;
        this.hostList = hostList;
        this.hosts = hosts;
    }

    /** See {@link dev.egressproxies.api.Provider#listManaged}. */
    List<Instance> listManaged(Deadline deadline) {
        Call call = new Call(entry, Operation.LIST_MANAGED, "", deadline);
        List<Instance> managed = new ArrayList<>();
        for (HostSettings host : hostList) {
            managed.addAll(hosts.call(host, call, libvirt -> listHost(libvirt, host, call)));
        }
        managed.sort(Comparator.comparing(Instance::id));
        return List.copyOf(managed);
    }

    private static List<Instance> listHost(LibvirtHost libvirt, HostSettings host, Call call) {
        List<Domain> domains = LibvirtSteps.step("listing the domains", libvirt::listAllDomains);
        List<Instance> managed = new ArrayList<>();
        for (Domain domain : domains) {
            call.checkDeadline();
            managedInstance(libvirt, host, domain).ifPresent(managed::add);
        }
        return managed;
    }

    private static Optional<Instance> managedInstance(LibvirtHost libvirt, HostSettings host, Domain domain) {
        try {
            Optional<InstanceMetadata> metadata = InstanceInspector.metadataOf(libvirt, domain);
            if (metadata.isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(InstanceInspector.describe(libvirt, host.name(), domain, metadata));
        } catch (LibvirtException failure) {
            if (failure.isTransportFailure()) {
                throw failure;
            }
            LOG.debug("skipping domain {} on host {}, which cannot be read: {}", domain.name(), host.name(),
                    failure.getMessage());
        } catch (IllegalArgumentException unreadable) {
            LOG.warn("skipping domain {} on host {}: its egress-proxies metadata cannot be read ({}); it is left out"
                    + " of managed instances, so it is never collected", domain.name(), host.name(),
                    unreadable.getMessage());
        }
        return Optional.empty();
    }
}

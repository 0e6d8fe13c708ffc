package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.config.MachineSize;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the {@link InstanceEngine} needs to know of a KVM provider entry's configuration, whichever
 * backend it belongs to.
 *
 * @param entry        the entry's name, carried by every error
 * @param hosts        the hypervisors, in configuration order; their names are the zones
 * @param machineTypes the machine types by name
 * @param diskSizeGb   the size of each VM's overlay in GiB
 * @param vendorData   the cloud-init vendor-data every VM's seed carries
 */
public record EntrySettings(String entry, List<HostSettings> hosts, Map<String, MachineSize> machineTypes,
                            int diskSizeGb, String vendorData) {

    /** Copies the collections, keeping their order. */
    public EntrySettings {
        hosts = List.copyOf(hosts);
        machineTypes = Collections.unmodifiableMap(new LinkedHashMap<>(machineTypes));
    }

    /** The host of that name, if configured. */
    public Optional<HostSettings> host(String name) {
        return hosts.stream().filter(host -> host.name().equals(name)).findFirst();
    }

    /** The configured host names, in configuration order, for messages. */
    public List<String> hostNames() {
        return hosts.stream().map(HostSettings::name).toList();
    }
}

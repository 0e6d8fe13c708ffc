package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.config.MachineSize;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

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

    /**
     * The provider entry names the configuration allows; {@link VolumeNames} relies on them (no
     * '+', nothing a file name cannot hold).
     */
    private static final Pattern ENTRY_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,62}");

    /**
     * Copies the collections, keeping their order.
     *
     * @throws IllegalArgumentException if {@code entry} is not a name the configuration allows
     */
    public EntrySettings {
        if (!ENTRY_NAME.matcher(entry).matches()) {
            throw new IllegalArgumentException("provider entry name '" + entry + "' cannot name volumes: use 1 to 63"
                    + " letters, digits, '.', '_' or '-', starting with a letter or digit");
        }
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

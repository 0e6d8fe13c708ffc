package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.config.MachineSize;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/** A KVM entry's configuration as the {@link InstanceEngine} uses it; the hosts' names are the zones. */
public record EntrySettings(String entry, List<HostSettings> hosts, Map<String, MachineSize> machineTypes,
                            int diskSizeGb, String vendorData) {

    /** Volume names rely on it: no '+', nothing a file name cannot hold. */
    private static final Pattern ENTRY_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,62}");

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

    /** For messages. */
    public List<String> hostNames() {
        return hosts.stream().map(HostSettings::name).toList();
    }
}

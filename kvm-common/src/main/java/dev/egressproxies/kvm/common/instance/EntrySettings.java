package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.config.MachineSize;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A KVM entry's configuration as the {@link InstanceEngine} uses it; the hosts' names are the zones.
 *
 * @param claimsHost   the host whose pool holds the entry's name claims and cordons (with several hosts)
 * @param claimTimeout the longest a name claim is held: the create or delete under it is cut off
 *                     before, and a claim older than it is stale
 */
public record EntrySettings(String entry, List<HostSettings> hosts, Map<String, MachineSize> machineTypes,
                            int diskSizeGb, String vendorData, String claimsHost, Duration claimTimeout) {

    /** Long enough for a create that fetches a large image, short enough to wait out a crashed holder. */
    public static final Duration DEFAULT_CLAIM_TIMEOUT = Duration.ofMinutes(30);

    /** Volume names rely on it: no '+', nothing a file name cannot hold. */
    private static final Pattern ENTRY_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,62}");

    public EntrySettings {
        if (!ENTRY_NAME.matcher(entry).matches()) {
            throw new IllegalArgumentException("provider entry name '" + entry + "' cannot name volumes: use 1 to 63"
                    + " letters, digits, '.', '_' or '-', starting with a letter or digit");
        }
        hosts = List.copyOf(hosts);
        machineTypes = Collections.unmodifiableMap(new LinkedHashMap<>(machineTypes));
        if (claimsHost == null || claimsHost.isEmpty()) {
            claimsHost = hosts.isEmpty() ? "" : hosts.get(0).name();
        }
        String named = claimsHost;
        if (!hosts.isEmpty() && hosts.stream().noneMatch(host -> host.name().equals(named))) {
            throw new IllegalArgumentException("claimsHost '" + claimsHost + "' is not a host of provider entry '"
                    + entry + "': name one of " + hosts.stream().map(HostSettings::name).toList()
                    + ", or leave it out to use the first");
        }
        if (claimTimeout == null) {
            claimTimeout = DEFAULT_CLAIM_TIMEOUT;
        }
    }

    /** Claims on the first host, with {@link #DEFAULT_CLAIM_TIMEOUT}. */
    public EntrySettings(String entry, List<HostSettings> hosts, Map<String, MachineSize> machineTypes,
                         int diskSizeGb, String vendorData) {
        this(entry, hosts, machineTypes, diskSizeGb, vendorData, "", null);
    }

    /** The host whose pool holds the entry's name claims and cordons. */
    public HostSettings claimsHostSettings() {
        return host(claimsHost).orElseThrow();
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

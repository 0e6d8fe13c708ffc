package dev.egressproxies.runtime.cli;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.runtime.config.ConfigException;
import picocli.CommandLine.Parameters;

/**
 * A host of an entry as {@code cordon}, {@code uncordon} and {@code drain} take it: {@code ENTRY/HOST},
 * where the host is one of the entry's zones.
 */
record HostReference(String entry, String zone) {

    /** Splits {@code ENTRY/HOST}; a usage error naming the form when it is not one. */
    static HostReference parse(String text) {
        int slash = text.indexOf('/');
        if (slash <= 0 || slash == text.length() - 1 || text.indexOf('/', slash + 1) >= 0) {
            throw new ConfigException("'" + text + "' names no host: use ENTRY/HOST, the entry and one of its hosts"
                    + " (zones) as list prints them, for example kvm-a/host-1");
        }
        return new HostReference(text.substring(0, slash), text.substring(slash + 1));
    }

    /** Checks the host is one of the entry's zones, naming them when it is not. */
    HostReference requireZoneOf(Provider provider) {
        if (!provider.zones().isEmpty() && !provider.zones().contains(zone)) {
            throw new ConfigException("'" + zone + "' is not a host of provider entry '" + entry + "': use one of "
                    + provider.zones());
        }
        return this;
    }

    /**
     * Sets or lifts the cordon of this host; a backend without cordons (the API's default, which
     * cannot know the entry's name) is refused naming the entry.
     */
    void cordon(Provider provider, boolean cordoned, Deadline deadline) {
        try {
            provider.cordon(zone, cordoned, deadline);
        } catch (ProviderException refused) {
            if (!refused.entry().isEmpty()) {
                throw refused;
            }
            throw new ProviderException(refused.kind(), refused.operation(), entry, "", refused.detail(), refused);
        }
    }

    /** The {@code ENTRY/HOST} parameter of cordon, uncordon and drain. */
    static final class Argument {
        @Parameters(index = "0", paramLabel = "ENTRY/HOST", description = "The entry and one of its hosts (zones).")
        String text;

        HostReference parse() {
            return HostReference.parse(text);
        }
    }

    @Override
    public String toString() {
        return entry + "/" + zone;
    }
}

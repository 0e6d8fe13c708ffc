package dev.egressproxies.runtime.wiring;

import dev.egressproxies.api.Provider;
import java.util.List;
import java.util.Optional;

/**
 * The configured provider entries as the commands see them: built once per invocation, closed at
 * its end.
 */
public interface ProviderEntries extends AutoCloseable {

    /** Where the entries were configured, for messages. */
    String source();

    /** The entries in configuration order. */
    List<EntrySummary> entries();

    /** The entry of that name. */
    Optional<Provider> provider(String entry);

    /** Closes every provider. */
    @Override
    void close();

    /**
     * One configured entry.
     *
     * @param name          its configured name
     * @param type          its backend type
     * @param pluginVersion the version of the plugin that built it
     * @param location      where the plugin was loaded from
     */
    record EntrySummary(String name, String type, String pluginVersion, String location) {
    }
}

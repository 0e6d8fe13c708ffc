package dev.egressproxies.registry;

import dev.egressproxies.api.Provider;
import java.util.Objects;

/**
 * One built provider entry of a {@link ProviderRegistry}: its configured name, the plugin that
 * built it, and the provider.
 *
 * @param name           the entry's configured name
 * @param type           the backend type, for example {@code kvm}
 * @param pluginVersion  the version of the plugin that built it
 * @param pluginLocation where that plugin was loaded from (module and/or jar)
 * @param provider       the provider; owned by the registry, which closes it
 */
public record ProviderEntry(String name, String type, String pluginVersion, String pluginLocation, Provider provider) {

    /** Requires every component. */
    public ProviderEntry {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(pluginVersion, "pluginVersion");
        Objects.requireNonNull(pluginLocation, "pluginLocation");
        Objects.requireNonNull(provider, "provider");
    }
}

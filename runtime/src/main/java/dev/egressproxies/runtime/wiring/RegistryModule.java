package dev.egressproxies.runtime.wiring;

import dagger.Module;
import dagger.Provides;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.spi.ProviderContext;
import dev.egressproxies.registry.ConfigurationException;
import dev.egressproxies.registry.PluginCatalog;
import dev.egressproxies.registry.ProviderEntry;
import dev.egressproxies.registry.ProviderRegistry;
import dev.egressproxies.runtime.config.ConfigException;
import dev.egressproxies.runtime.config.Configuration;
import java.util.List;
import java.util.Optional;
import javax.inject.Singleton;

/**
 * Provides the plugin catalog (discovered on the module and class path) and the provider entries
 * the configuration asks for. The configuration is all or nothing (one unknown field or type and
 * no entry starts); an entry whose plugin fails to build it fails only its own calls, so one
 * broken backend does not take down the others.
 */
@Module
public final class RegistryModule {
    private RegistryModule() {
    }

    @Provides
    @Singleton
    static PluginCatalog catalog(LoggingModule.LoggingReady logging) {
        return PluginCatalog.discover();
    }

    @Provides
    static List<PluginSummary> plugins(PluginCatalog catalog) {
        return catalog.plugins().stream()
                .map(plugin -> new PluginSummary(plugin.type(), plugin.version(), plugin.location()))
                .toList();
    }

    @Provides
    @Singleton
    static ProviderEntries entries(PluginCatalog catalog, Configuration configuration, ProviderContext context) {
        ProviderRegistry registry;
        try {
            registry = ProviderRegistry.buildIsolatingFailures(catalog, configuration.providers(), context);
        } catch (ConfigurationException e) {
            throw new ConfigException("config " + configuration.source() + " has "
                    + (e.problems().size() == 1 ? "a problem" : e.problems().size() + " problems")
                    + ", so no provider entry was started:\n  " + String.join("\n  ", e.problems()), e);
        }
        return new RegistryEntries(configuration.source().description(), registry);
    }

    /** The registry seen through the runtime's {@link ProviderEntries} view. */
    private record RegistryEntries(String source, ProviderRegistry registry) implements ProviderEntries {
        @Override
        public List<EntrySummary> entries() {
            return registry.entries().stream().map(RegistryEntries::summary).toList();
        }

        @Override
        public Optional<Provider> provider(String entry) {
            return registry.provider(entry);
        }

        @Override
        public void close() {
            registry.close();
        }

        private static EntrySummary summary(ProviderEntry entry) {
            return new EntrySummary(entry.name(), entry.type(), entry.pluginVersion(), entry.pluginLocation());
        }
    }
}

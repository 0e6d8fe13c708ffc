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
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import javax.inject.Singleton;

/**
 * Provides the plugin catalog (on the module and class path, and in the plugin folders: the bundled
 * one the launcher names and those of {@code EGRESSCTL_PLUGINS}, each plugin in a module layer of its
 * own) and the provider entries the configuration asks for. The configuration is all or nothing
 * (one unknown field or type and no entry starts); an entry whose plugin fails to load or to build
 * it fails only its own calls, so one broken backend does not take down the others.
 */
@Module
public final class RegistryModule {
    /** The bundled plugins folder, which the launcher names. */
    static final String BUNDLED_PLUGINS_PROPERTY = "egressctl.plugins";
    /** More plugin folders or jars, separated like a path. */
    static final String PLUGINS_VARIABLE = "EGRESSCTL_PLUGINS";

    private RegistryModule() {
    }

    @Provides
    @Singleton
    static PluginCatalog catalog(LoggingModule.LoggingReady logging, Invocation invocation) {
        List<Path> sources = new ArrayList<>();
        String bundled = System.getProperty(BUNDLED_PLUGINS_PROPERTY, "");
        if (!bundled.isBlank()) {
            sources.add(Path.of(bundled));
        }
        for (String folder : invocation.environment().getOrDefault(PLUGINS_VARIABLE, "").split(File.pathSeparator)) {
            if (!folder.isBlank()) {
                sources.add(Path.of(folder));
            }
        }
        return PluginCatalog.discover(sources);
    }

    @Provides
    static List<PluginSummary> plugins(PluginCatalog catalog) {
        List<PluginSummary> plugins = catalog.plugins().stream()
                .map(plugin -> new PluginSummary(plugin.type(), plugin.version(), plugin.location(), ""))
                .collect(Collectors.toCollection(ArrayList::new));
        catalog.broken().forEach(broken -> plugins.add(new PluginSummary("", "", broken.location().toString(),
                broken.problem())));
        return List.copyOf(plugins);
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

package dev.egressproxies.runtime.wiring;

import com.fasterxml.jackson.databind.JsonNode;
import dagger.Lazy;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.spi.ProviderContext;
import dev.egressproxies.registry.ConfigurationException;
import dev.egressproxies.registry.PluginCatalog;
import dev.egressproxies.registry.ProviderRegistry;
import dev.egressproxies.runtime.config.ConfigException;
import dev.egressproxies.runtime.config.Configuration;
import dev.egressproxies.runtime.output.Printer;
import io.opentelemetry.api.OpenTelemetry;
import java.io.Closeable;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import javax.inject.Inject;
import javax.inject.Named;

/**
 * What a command works with during one invocation: the provider entries (built on first use, so
 * {@code --version} needs no valid config), the discovered plugins, the printer and deadlines.
 * Closing it closes the providers and flushes telemetry.
 */
public final class Session implements AutoCloseable {
    private final Invocation invocation;
    private final Lazy<ProviderEntries> entries;
    private final Lazy<List<PluginSummary>> plugins;
    private final Lazy<OpenTelemetry> telemetry;
    private final Lazy<PluginCatalog> catalog;
    private final Lazy<Configuration> configuration;
    private final Lazy<ProviderContext> context;
    private final Lazy<Path> stateDirectory;
    private final Printer printer;
    private boolean entriesBuilt;
    private boolean telemetryStarted;

    @Inject
    Session(Invocation invocation, Lazy<ProviderEntries> entries, Lazy<List<PluginSummary>> plugins,
            Lazy<OpenTelemetry> telemetry, Lazy<PluginCatalog> catalog, Lazy<Configuration> configuration,
            Lazy<ProviderContext> context, @Named("stateDirectory") Lazy<Path> stateDirectory) {
        this.invocation = invocation;
        this.stateDirectory = stateDirectory;
        this.entries = entries;
        this.plugins = plugins;
        this.telemetry = telemetry;
        this.catalog = catalog;
        this.configuration = configuration;
        this.context = context;
        this.printer = new Printer(invocation.output(), invocation.out(), invocation.err());
    }

    /** The configured entries; builds them (and fails with the config error) on first use. */
    public ProviderEntries entries() {
        telemetryStarted = true;
        ProviderEntries built = entries.get();
        entriesBuilt = true;
        return built;
    }

    /**
     * The names of the configured entries, read from the config alone: no plugin is loaded and no
     * entry built, so shell completion can ask for them quickly.
     */
    public List<String> configuredEntryNames() {
        return configuration.get().providers().stream()
                .map(node -> node.path("name").asText(""))
                .filter(name -> !name.isBlank())
                .toList();
    }

    /** The user's state directory (which may not exist yet). */
    public Path stateDirectory() {
        return stateDirectory.get();
    }

    /**
     * The provider of the named entry.
     *
     * @throws ConfigException naming the configured entries when there is none of that name
     */
    public Provider provider(String entry) {
        ProviderEntries all = entries();
        return all.provider(entry).orElseThrow(() -> new ConfigException("no provider entry named '" + entry
                + "' in " + all.source() + "; configured entries: " + all.entries().stream()
                .map(ProviderEntries.EntrySummary::name).collect(Collectors.joining(", "))));
    }

    /**
     * Builds the named entry anew and alone, in a registry of its own that the caller closes: for
     * runs that want a fresh provider per step, as the conformance suite does per case.
     *
     * @throws ConfigException when there is no entry of that name, or its plugin cannot build it
     */
    public ProviderRegistry buildAlone(String entry) {
        provider(entry);
        Configuration config = configuration.get();
        List<JsonNode> named = config.providers().stream()
                .filter(node -> entry.equals(node.path("name").asText(null)))
                .toList();
        try {
            return ProviderRegistry.build(catalog.get(), named, context.get());
        } catch (ConfigurationException e) {
            throw new ConfigException("entry '" + entry + "' of " + config.source() + " cannot be built: "
                    + String.join("; ", e.problems()), e);
        }
    }

    /** The plugins found on the module and class path. */
    public List<PluginSummary> plugins() {
        return plugins.get();
    }

    /** Where results go. */
    public Printer printer() {
        return printer;
    }

    /** How long one provider call may take ({@code --timeout}). */
    public Duration timeout() {
        return invocation.timeout();
    }

    /** Standard error. */
    public PrintStream err() {
        return invocation.err();
    }

    /** A fresh deadline for one provider call, from {@code --timeout}. */
    public Deadline deadline() {
        return Deadline.after(invocation.timeout());
    }

    @Override
    public void close() {
        try {
            if (entriesBuilt) {
                entries.get().close();
            }
        } finally {
            // Only an SDK holds spans to flush; the no-op API has nothing to close.
            if (telemetryStarted && telemetry.get() instanceof Closeable sdk) {
                try {
                    sdk.close();
                } catch (IOException e) {
                    throw new UncheckedIOException("could not flush telemetry", e);
                }
            }
        }
    }
}

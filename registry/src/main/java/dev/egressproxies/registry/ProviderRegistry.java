package dev.egressproxies.registry;

import com.fasterxml.jackson.databind.JsonNode;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.conformance.ConformanceProfile;
import dev.egressproxies.api.spi.ProviderContext;
import dev.egressproxies.api.spi.ProviderFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The configured provider entries of a running platform, built once from a {@link PluginCatalog}
 * and the configuration's entries, and immutable afterwards.
 *
 * <p>Building is all or nothing: every entry is checked and bound first, and every problem found
 * is reported in one {@link ConfigurationException}; only when there is none are the providers
 * built, and when one of them fails the ones already built are closed again. Tools that must keep
 * working when one backend is broken use {@link #buildIsolatingFailures} instead, where binding is
 * still all or nothing but an entry whose plugin fails to build it only fails its own calls. See the package
 * documentation for how entries are written and bound.
 *
 * <p>Safe for concurrent use. {@link #close()} closes every provider; the registry is not used
 * afterwards.
 */
public final class ProviderRegistry implements AutoCloseable {
    /** The configuration key the entries are read from, used as the root of error paths. */
    public static final String DEFAULT_CONFIG_PATH = "providers";

    private static final Logger LOG = LoggerFactory.getLogger(ProviderRegistry.class);

    private final PluginCatalog catalog;
    private final List<ProviderEntry> entries;
    private final Map<String, ProviderEntry> entriesByName;
    private final Map<String, ProviderBuilder.BoundEntry> boundByName;
    private final ProviderContext context;
    private final AtomicBoolean closed = new AtomicBoolean();

    private ProviderRegistry(PluginCatalog catalog, List<ProviderBuilder.BoundEntry> bound, List<ProviderEntry> entries,
                             ProviderContext context) {
        this.catalog = catalog;
        this.entries = List.copyOf(entries);
        this.context = context;
        Map<String, ProviderEntry> byName = new LinkedHashMap<>();
        entries.forEach(entry -> byName.put(entry.name(), entry));
        this.entriesByName = Map.copyOf(byName);
        Map<String, ProviderBuilder.BoundEntry> boundEntries = new LinkedHashMap<>();
        bound.forEach(entry -> boundEntries.put(entry.entry().name(), entry));
        this.boundByName = Map.copyOf(boundEntries);
    }

    /**
     * Builds the registry from the configuration's list of entries.
     *
     * @param catalog   the plugins available
     * @param providers the configuration's {@code providers} value: an array of entry objects
     *                  {@code {name, type, ...settings}}; {@code null}, a JSON null or a missing
     *                  node mean no entries
     * @param context   the services shared with every plugin
     * @throws ConfigurationException listing every problem; no provider is left running
     */
    public static ProviderRegistry build(PluginCatalog catalog, JsonNode providers, ProviderContext context) {
        if (providers == null || providers.isNull() || providers.isMissingNode()) {
            return build(catalog, List.of(), context);
        }
        if (!providers.isArray()) {
            throw new ConfigurationException(List.of(DEFAULT_CONFIG_PATH + ": expected a list of provider entries,"
                    + " got " + JsonValues.describe(providers)));
        }
        List<JsonNode> entries = new ArrayList<>();
        providers.elements().forEachRemaining(entries::add);
        return build(catalog, entries, context);
    }

    /**
     * Builds the registry from a list of entry objects {@code {name, type, ...settings}}, reported
     * in errors as {@code providers[i]}.
     *
     * @throws ConfigurationException listing every problem; no provider is left running
     */
    public static ProviderRegistry build(PluginCatalog catalog, List<? extends JsonNode> entries, ProviderContext context) {
        return build(catalog, DEFAULT_CONFIG_PATH, entries, context);
    }

    /**
     * Builds the registry from a list of entry objects, reporting paths under {@code configPath}
     * (for example {@code egress.providers}) for configurations that keep the entries elsewhere.
     *
     * @throws ConfigurationException listing every problem; no provider is left running
     */
    public static ProviderRegistry build(PluginCatalog catalog, String configPath, List<? extends JsonNode> entries,
                                         ProviderContext context) {
        Objects.requireNonNull(catalog, "catalog");
        Objects.requireNonNull(configPath, "configPath");
        Objects.requireNonNull(entries, "entries");
        Objects.requireNonNull(context, "context");
        List<ProviderBuilder.BoundEntry> bound = bind(catalog, configPath, entries);
        return new ProviderRegistry(catalog, bound, ProviderBuilder.buildAll(bound, context), context);
    }

    private static List<ProviderBuilder.BoundEntry> bind(PluginCatalog catalog, String configPath,
                                                        List<? extends JsonNode> entries) {
        ProblemList problems = new ProblemList();
        List<ConfiguredEntry> configured = new EntryReader(configPath, catalog, problems).read(entries);
        SettingsBinder binder = new SettingsBinder(problems);
        List<ProviderBuilder.BoundEntry> bound = new ArrayList<>();
        // Every entry is bound even after a failure, so one error lists all problems at once.
        for (ConfiguredEntry entry : configured) {
            binder.bind(entry).ifPresent(config -> bound.add(new ProviderBuilder.BoundEntry(entry, config)));
        }
        problems.throwIfAny();
        return bound;
    }

    /**
     * Builds the registry like {@link #build(PluginCatalog, List, ProviderContext)}, except that
     * an entry whose plugin fails to build it does not stop the others: binding stays all or
     * nothing (unknown fields, mistyped values and unknown types still fail the whole build),
     * but a factory that throws leaves its entry in the registry with a provider that fails every
     * call with that error (of its kind when the factory threw a {@link
     * dev.egressproxies.api.ProviderException}, else PERMANENT) and reports a failed preflight
     * check. For tools where one broken backend must not take down the others.
     *
     * @throws ConfigurationException listing every binding problem; no provider is left running
     */
    public static ProviderRegistry buildIsolatingFailures(PluginCatalog catalog, List<? extends JsonNode> entries,
                                                          ProviderContext context) {
        Objects.requireNonNull(catalog, "catalog");
        Objects.requireNonNull(entries, "entries");
        Objects.requireNonNull(context, "context");
        List<ProviderBuilder.BoundEntry> bound = bind(catalog, DEFAULT_CONFIG_PATH, entries);
        return new ProviderRegistry(catalog, bound, ProviderBuilder.buildEach(bound, context), context);
    }

    /** The entries, in configuration order. */
    public List<ProviderEntry> entries() {
        return entries;
    }

    /** The entry with this name, if configured. */
    public Optional<ProviderEntry> find(String name) {
        return Optional.ofNullable(entriesByName.get(name));
    }

    /**
     * The entry with this name.
     *
     * @throws NoSuchElementException when no entry has that name, listing the configured names
     */
    public ProviderEntry require(String name) {
        return find(name).orElseThrow(() -> new NoSuchElementException("no provider entry named '" + name + "' ("
                + (entries.isEmpty() ? "no entries are configured" : "configured: " + String.join(", ", names()))
                + ")"));
    }

    /** The provider of the entry with this name, if configured. */
    public Optional<Provider> provider(String name) {
        return find(name).map(ProviderEntry::provider);
    }

    /**
     * How {@code egressctl conformance} checks the entry, as its plugin declares it through
     * {@link ProviderFactory#conformanceProfile}; empty when the plugin declares nothing, or the
     * entry could not be built.
     *
     * @throws NoSuchElementException when no entry has that name
     */
    public Optional<ConformanceProfile> conformanceProfile(String name) {
        ProviderEntry entry = require(name);
        ProviderBuilder.BoundEntry bound = boundByName.get(name);
        if (entry.provider() instanceof UnavailableProvider) {
            return Optional.empty();
        }
        return profile(bound.entry().plugin().factory(), name, bound.config(), entry.provider(), context);
    }

    // The config is the instance the binder made from factory.configType(), so the cast holds.
    private static <C> Optional<ConformanceProfile> profile(ProviderFactory<C> factory, String name, Object config,
                                                            Provider provider, ProviderContext context) {
        return factory.conformanceProfile(name, factory.configType().cast(config), provider, context);
    }

    /** The entry names, in configuration order. */
    public List<String> names() {
        return entries.stream().map(ProviderEntry::name).toList();
    }

    /** The plugins that were available when the registry was built, by type. */
    public PluginCatalog catalog() {
        return catalog;
    }

    /**
     * Closes every provider, in reverse configuration order; a failure to close one is logged and
     * does not stop the others. Closing again does nothing.
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            LOG.debug("Closing {} provider entries", entries.size());
            ProviderBuilder.closeAll(entries, null);
        }
    }

    @Override
    public String toString() {
        return "ProviderRegistry" + names();
    }
}

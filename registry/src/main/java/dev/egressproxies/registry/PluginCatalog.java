package dev.egressproxies.registry;

import dev.egressproxies.api.spi.ProviderFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The immutable set of provider plugins available to the platform, one per backend type.
 *
 * <p>Built by discovery ({@link #discover()}, {@link #discover(ModuleLayer)},
 * {@link #discover(ClassLoader)}) or from an explicit list of factories ({@link #of}). Two
 * plugins providing the same type are an error naming both; the same factory class found twice
 * (through a layer and a class loader that both see it) counts once.
 */
public final class PluginCatalog {
    private static final Logger LOG = LoggerFactory.getLogger(PluginCatalog.class);

    private final Map<String, Plugin> pluginsByType;
    private final List<BrokenPlugin> broken;

    private PluginCatalog(Map<String, Plugin> pluginsByType, List<BrokenPlugin> broken) {
        this.pluginsByType = Collections.unmodifiableMap(new TreeMap<>(pluginsByType));
        this.broken = List.copyOf(broken);
    }

    /**
     * Discovers the plugins of a running platform like {@link #discover()}, plus those installed in
     * {@code pluginSources}, each in a module layer of its own ({@link PluginFolders}). A plugin that
     * cannot be loaded is left out and listed in {@link #broken()}; the others load.
     *
     * @throws PluginDiscoveryException when two plugins provide one type, or one on the module or
     *                                  class path is broken
     */
    public static PluginCatalog discover(List<Path> pluginSources) {
        List<ProviderFactory<?>> factories = platformFactories();
        PluginFolders.Loaded loaded = PluginFolders.load(pluginSources);
        List<BrokenPlugin> broken = new ArrayList<>(loaded.broken());
        for (Map.Entry<Path, ModuleLayer> plugin : loaded.layers().entrySet()) {
            try {
                List<ProviderFactory<?>> found = PluginDiscovery.ownedBy(plugin.getValue());
                if (found.isEmpty()) {
                    broken.add(new BrokenPlugin(plugin.getKey(), "it provides no "
                            + ProviderFactory.class.getName() + "; declare one with 'provides' in its module-info"
                            + " or in META-INF/services"));
                }
                factories.addAll(found);
            } catch (PluginDiscoveryException failure) {
                broken.add(new BrokenPlugin(plugin.getKey(), String.join("; ", failure.problems())));
            }
        }
        return of(factories, broken);
    }

    /**
     * Discovers the plugins of a running platform: those in the boot layer (the module path) and
     * those visible to the current thread's context class loader (the class path).
     *
     * @throws PluginDiscoveryException when a plugin is broken or two plugins provide one type
     */
    public static PluginCatalog discover() {
        return of(platformFactories());
    }

    /** The factories in the boot layer and those the context class loader sees. */
    private static List<ProviderFactory<?>> platformFactories() {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        if (loader == null) {
            loader = PluginCatalog.class.getClassLoader();
        }
        List<ProviderFactory<?>> factories = new ArrayList<>(PluginDiscovery.inLayer(ModuleLayer.boot()));
        factories.addAll(PluginDiscovery.inClassLoader(loader));
        return factories;
    }

    /**
     * Discovers the plugins provided by modules of {@code layer} and its parent layers, for
     * plugins loaded on the module path or into a layer of their own.
     *
     * @throws PluginDiscoveryException when a plugin is broken or two plugins provide one type
     */
    public static PluginCatalog discover(ModuleLayer layer) {
        return of(PluginDiscovery.inLayer(layer));
    }

    /**
     * Discovers the plugins visible to {@code loader}: listed in {@code META-INF/services} on its
     * class path, or provided by named modules defined to it.
     *
     * @throws PluginDiscoveryException when a plugin is broken or two plugins provide one type
     */
    public static PluginCatalog discover(ClassLoader loader) {
        return of(PluginDiscovery.inClassLoader(loader));
    }

    /**
     * Makes a catalog of the given factories, without discovery: for tests, and for a runtime
     * that wires its plugins by hand.
     *
     * @throws PluginDiscoveryException when a factory reports no type or two provide one type
     */
    public static PluginCatalog of(ProviderFactory<?>... factories) {
        return of(List.of(factories));
    }

    /**
     * Makes a catalog of the given factories, without discovery.
     *
     * @throws PluginDiscoveryException when a factory reports no type or two provide one type
     */
    public static PluginCatalog of(Collection<? extends ProviderFactory<?>> factories) {
        return of(factories, List.of());
    }

    private static PluginCatalog of(Collection<? extends ProviderFactory<?>> factories, List<BrokenPlugin> broken) {
        Map<String, Plugin> pluginsByType = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        Map<Class<?>, Boolean> seenClasses = new IdentityHashMap<>();
        for (ProviderFactory<?> factory : factories) {
            if (seenClasses.put(factory.getClass(), Boolean.TRUE) != null) {
                continue;
            }
            describe(factory, problems).ifPresent(plugin -> {
                Plugin earlier = pluginsByType.putIfAbsent(plugin.type(), plugin);
                if (earlier != null) {
                    problems.add("provider type '" + plugin.type() + "' is provided twice: by "
                            + earlier.source() + " and by " + plugin.source()
                            + "; remove one of the two plugins");
                }
            });
        }
        if (!problems.isEmpty()) {
            throw new PluginDiscoveryException(problems, null);
        }
        for (Plugin plugin : pluginsByType.values()) {
            LOG.info("Found provider plugin: type '{}', version {}, from {}", plugin.type(), plugin.version(),
                    plugin.location());
            LOG.debug("Provider type '{}' is built by {}", plugin.type(), plugin.factoryClassName());
        }
        if (pluginsByType.isEmpty()) {
            LOG.info("Found no provider plugins");
        }
        return new PluginCatalog(pluginsByType, broken);
    }

    // type() and version() are plugin code: a failure there is reported like a broken plugin.
    private static Optional<Plugin> describe(ProviderFactory<?> factory, List<String> problems) {
        Class<?> factoryClass = factory.getClass();
        String location = PluginLocations.describe(factoryClass);
        String type;
        String version;
        try {
            type = factory.type();
            version = factory.version();
        } catch (RuntimeException | LinkageError broken) {
            problems.add("provider plugin " + factoryClass.getName() + " from " + location
                    + " failed to report its type or version: " + broken);
            return Optional.empty();
        }
        if (type == null || type.isBlank() || !type.strip().equals(type)) {
            problems.add("provider plugin " + factoryClass.getName() + " from " + location
                    + " reports the type '" + type + "'; a type must be a non-blank name without surrounding spaces");
            return Optional.empty();
        }
        return Optional.of(new Plugin(type, version == null ? "unknown" : version, location, factory));
    }

    /** The plugins, sorted by type. */
    public List<Plugin> plugins() {
        return List.copyOf(pluginsByType.values());
    }

    /** The plugin that provides {@code type}, if any. */
    public Optional<Plugin> find(String type) {
        return Optional.ofNullable(pluginsByType.get(type));
    }

    /** The types provided, sorted. */
    public Set<String> types() {
        return pluginsByType.keySet();
    }

    /** The installed plugins that could not be loaded, in the order they were tried. */
    public List<BrokenPlugin> broken() {
        return broken;
    }

    /** Whether no plugin was found. */
    public boolean isEmpty() {
        return pluginsByType.isEmpty();
    }

    @Override
    public String toString() {
        return "PluginCatalog" + pluginsByType.values().stream()
                .map(plugin -> plugin.type() + " " + plugin.version())
                .toList();
    }
}

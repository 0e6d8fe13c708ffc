package dev.egressproxies.registry;

import dev.egressproxies.api.spi.ProviderFactory;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lookup of {@link ProviderFactory} implementations with {@link ServiceLoader}: the one place in
 * the platform that calls it, so that discovery and its error messages stay in one place.
 */
final class PluginDiscovery {
    private static final Logger LOG = LoggerFactory.getLogger(PluginDiscovery.class);
    /** Stops collecting after this many broken providers, in case a lookup never recovers. */
    private static final int MAX_PROBLEMS = 20;

    private PluginDiscovery() {
    }

    /** Finds the factories that modules of {@code layer} and its parents provide. */
    @SuppressWarnings("rawtypes")
    static List<ProviderFactory<?>> inLayer(ModuleLayer layer) {
        LOG.debug("Looking for provider plugins in module layer {}", layer);
        return instantiate(ServiceLoader.load(layer, ProviderFactory.class), type -> true);
    }

    /** Finds the factories that modules of {@code layer} itself provide, leaving out its parents'. */
    @SuppressWarnings("rawtypes")
    static List<ProviderFactory<?>> ownedBy(ModuleLayer layer) {
        return instantiate(ServiceLoader.load(layer, ProviderFactory.class),
                type -> type.getModule().getLayer() == layer);
    }

    /**
     * Finds the factories visible to {@code loader}: those of named modules defined to it (or its
     * ancestors) and those listed in {@code META-INF/services} files on its class path.
     */
    @SuppressWarnings("rawtypes")
    static List<ProviderFactory<?>> inClassLoader(ClassLoader loader) {
        LOG.debug("Looking for provider plugins through class loader {}", loader);
        return instantiate(ServiceLoader.load(ProviderFactory.class, loader), type -> true);
    }

    // Raw types: ServiceLoader cannot be typed with a generic service interface.
    @SuppressWarnings("rawtypes")
    private static List<ProviderFactory<?>> instantiate(ServiceLoader<ProviderFactory> loader,
                                                        Predicate<Class<?>> wanted) {
        List<ProviderFactory<?>> factories = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        Throwable firstFailure = null;
        // The stream's providers expose their class before instantiation, so an error can name
        // the class and the jar even when its constructor fails.
        Iterator<ServiceLoader.Provider<ProviderFactory>> candidates = loader.stream().iterator();
        while (problems.size() < MAX_PROBLEMS) {
            ServiceLoader.Provider<ProviderFactory> candidate;
            try {
                if (!candidates.hasNext()) {
                    break;
                }
                candidate = candidates.next();
                if (!wanted.test(candidate.type())) {
                    continue;
                }
            } catch (ServiceConfigurationError broken) {
                // A class named in META-INF/services is missing or is not a ProviderFactory; the
                // lookup skips it and goes on with the next one.
                problems.add("a provider plugin is broken: " + broken.getMessage()
                        + "; fix or remove the plugin jar that lists it");
                firstFailure = firstFailure == null ? broken : firstFailure;
                continue;
            }
            try {
                factories.add(candidate.get());
            } catch (ServiceConfigurationError | RuntimeException | LinkageError broken) {
                Class<?> type = candidate.type();
                problems.add("provider plugin " + type.getName() + " from " + PluginLocations.describe(type)
                        + " could not be instantiated: " + rootMessage(broken)
                        + "; a factory needs a public no-argument constructor that does not fail");
                firstFailure = firstFailure == null ? broken : firstFailure;
            }
        }
        if (!problems.isEmpty()) {
            throw new PluginDiscoveryException(problems, firstFailure);
        }
        return factories;
    }

    private static String rootMessage(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.getClass().getName() : root.getClass().getName() + ": " + root.getMessage();
    }
}

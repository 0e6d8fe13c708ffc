package dev.egressproxies.integration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.conformance.ConformanceProfile;
import dev.egressproxies.api.spi.ProviderContext;
import dev.egressproxies.conformance.ConformanceTarget;
import dev.egressproxies.registry.PluginCatalog;
import dev.egressproxies.registry.ProviderRegistry;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;

/**
 * Builds providers the way the platform does: reads a YAML configuration from the test
 * resources, discovers the plugins on the class path with ServiceLoader, and lets the registry
 * bind and build the configured entries. No test constructs a backend with {@code new}.
 */
public final class ConfiguredProviders {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private ConfiguredProviders() {
    }

    /**
     * The provider of one entry of a configuration resource, of the type the test expects.
     *
     * <p>The registry that built it is not kept: it holds nothing but its providers, and the
     * conformance suite closes the provider after each test.
     *
     * @param resource the configuration's path on the class path, for example {@code /conformance/fake.yaml}
     * @param entry    the entry's name
     * @param type     the provider class the entry's plugin builds, for the harness hooks
     */
    public static <P extends Provider> P provider(String resource, String entry, Class<P> type,
                                                  ProviderContext context) throws IOException {
        return provider(read(resource), PluginCatalog.discover(), resource, entry, type, context);
    }

    /**
     * The provider of one entry of a configuration given as YAML text, for configurations that
     * depend on the machine (ports, key files) and are written by the test.
     *
     * @param yaml a configuration document with a {@code providers} list
     */
    public static <P extends Provider> P providerFromYaml(String yaml, String entry, Class<P> type,
                                                          ProviderContext context) throws IOException {
        return providerFromYaml(yaml, PluginCatalog.discover(), entry, type, context);
    }

    /**
     * Like {@link #providerFromYaml(String, String, Class, ProviderContext)}, with the plugins of
     * {@code catalog} instead of those on the class path: for a test's own factory of a type, such
     * as one that instruments the real backend.
     */
    public static <P extends Provider> P providerFromYaml(String yaml, PluginCatalog catalog, String entry,
                                                          Class<P> type, ProviderContext context) throws IOException {
        return provider(YAML.readTree(yaml), catalog, "the test's configuration", entry, type, context);
    }

    /**
     * A conformance target of one entry of a configuration resource, described by the profile its
     * plugin declares ({@link ProviderRegistry#conformanceProfile}), as {@code egressctl
     * conformance} describes it.
     */
    public static ConformanceTarget.Builder target(String resource, String entry, ProviderContext context)
            throws IOException {
        ProviderRegistry registry = ProviderRegistry.build(PluginCatalog.discover(),
                read(resource).get(ProviderRegistry.DEFAULT_CONFIG_PATH), context);
        ConformanceProfile profile = registry.conformanceProfile(entry).orElseThrow(() -> new IllegalStateException(
                "the plugin of entry '" + entry + "' of " + resource + " declares no conformance profile"));
        return ConformanceTarget.builder(registry.require(entry).provider(), entry).profile(profile);
    }

    private static <P extends Provider> P provider(JsonNode config, PluginCatalog catalog, String source,
                                                   String entry, Class<P> type, ProviderContext context) {
        ProviderRegistry registry = ProviderRegistry.build(catalog,
                config.get(ProviderRegistry.DEFAULT_CONFIG_PATH), context);
        Provider provider = registry.require(entry).provider();
        if (!type.isInstance(provider)) {
            registry.close();
            throw new IllegalStateException("entry '" + entry + "' of " + source + " built a "
                    + provider.getClass().getName() + ", not a " + type.getName());
        }
        return type.cast(provider);
    }

    /** Reads a YAML resource from the test class path. */
    public static JsonNode read(String resource) throws IOException {
        try (InputStream in = ConfiguredProviders.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new FileNotFoundException(resource + " is not on the test class path");
            }
            return YAML.readTree(in);
        }
    }
}

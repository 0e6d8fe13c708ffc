package dev.egressproxies.integration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.spi.ProviderContext;
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
final class ConfiguredProviders {
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
    static <P extends Provider> P provider(String resource, String entry, Class<P> type, ProviderContext context)
            throws IOException {
        ProviderRegistry registry = ProviderRegistry.build(PluginCatalog.discover(),
                read(resource).get(ProviderRegistry.DEFAULT_CONFIG_PATH), context);
        Provider provider = registry.require(entry).provider();
        if (!type.isInstance(provider)) {
            registry.close();
            throw new IllegalStateException("entry '" + entry + "' of " + resource + " built a "
                    + provider.getClass().getName() + ", not a " + type.getName());
        }
        return type.cast(provider);
    }

    /** Reads a YAML resource from the test class path. */
    static JsonNode read(String resource) throws IOException {
        try (InputStream in = ConfiguredProviders.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new FileNotFoundException(resource + " is not on the test class path");
            }
            return YAML.readTree(in);
        }
    }
}

package dev.egressproxies.kvm.common.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.spi.ProviderFactory;
import dev.egressproxies.registry.ConfigurationException;
import dev.egressproxies.registry.PluginCatalog;
import dev.egressproxies.registry.ProviderRegistry;
import java.util.List;

/**
 * Builds provider entries from YAML through the platform's real registry, as the runtime does:
 * reflectively, through the config packages' {@code opens}, with the registry's strict rules. For
 * the backends' configuration binding tests.
 */
public final class RegistryBinding {
    private RegistryBinding() {
    }

    /**
     * Builds the entries of the {@code providers:} list in {@code yaml} with {@code factory} and
     * returns the provider of {@code entry}, closed again.
     *
     * @throws ConfigurationException when the registry refuses the configuration
     */
    public static Provider build(ProviderFactory<?> factory, String yaml, String entry) throws Exception {
        JsonNode providers = new YAMLMapper().readTree(yaml).get("providers");
        try (ProviderRegistry registry = ProviderRegistry.build(PluginCatalog.of(factory), providers,
                new TestProviderContext())) {
            return registry.require(entry).provider();
        }
    }

    /** What the registry says is wrong with {@code yaml}; fails the test when it accepts it. */
    public static List<String> problems(ProviderFactory<?> factory, String yaml, String entry) {
        try {
            build(factory, yaml, entry);
        } catch (ConfigurationException rejected) {
            return rejected.problems();
        } catch (Exception unexpected) {
            throw new AssertionError(unexpected);
        }
        throw new AssertionError("the configuration was accepted");
    }
}

package dev.egressproxies.integration;

import dev.egressproxies.conformance.TestProviderContext;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.egressproxies.example.ExampleProvider;
import dev.egressproxies.example.ExampleProviderFactory;
import dev.egressproxies.registry.ConfigurationException;
import dev.egressproxies.registry.Plugin;
import dev.egressproxies.registry.PluginCatalog;
import dev.egressproxies.registry.ProviderRegistry;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that a new plugin needs no change elsewhere in the tree: the registry discovers the
 * example plugin from its {@code META-INF/services} file on the class path, builds it from its
 * type in a configuration file, and checks its settings like any other plugin's.
 */
class ExamplePluginDiscoveryTest {
    @TempDir
    Path stateDirectory;

    @Test
    void registryDiscoversTheExamplePluginOnTheClassPath() {
        Plugin example = PluginCatalog.discover().find("example").orElseThrow();

        assertThat(example.factory()).isInstanceOf(ExampleProviderFactory.class);
        assertThat(example.location()).as("where the plugin was loaded from").contains("test-classes");
    }

    @Test
    void configurationSelectsTheExamplePluginByType() throws Exception {
        try (ProviderRegistry registry = ProviderRegistry.build(PluginCatalog.discover(),
                ConfiguredProviders.read("/conformance/example.yaml").get("providers"),
                new TestProviderContext(stateDirectory))) {

            assertThat(registry.require("example-conformance").type()).isEqualTo("example");
            assertThat(registry.require("example-conformance").provider()).isInstanceOf(ExampleProvider.class);
        }
    }

    @Test
    void registryReportsAMisspelledExampleSettingByItsPath() throws Exception {
        JsonNode providers = ConfiguredProviders.read("/conformance/example-misspelled.yaml").get("providers");

        assertThatThrownBy(() -> ProviderRegistry.build(PluginCatalog.discover(), providers,
                new TestProviderContext(stateDirectory)))
                .isInstanceOfSatisfying(ConfigurationException.class, error -> assertThat(error.problems())
                        .anySatisfy(problem -> assertThat(problem)
                                .contains("example-typo", "providers[0].imagez", "unknown field")));
    }
}

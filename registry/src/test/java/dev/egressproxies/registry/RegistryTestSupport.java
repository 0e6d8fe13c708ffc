package dev.egressproxies.registry;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.egressproxies.conformance.TestProviderContext;
import dev.egressproxies.registry.fixtures.Entries;
import java.nio.file.Path;
import org.assertj.core.api.AbstractThrowableAssert;
import org.assertj.core.api.ObjectAssert;

/** Test helpers that build registries from YAML and assert on the configuration errors they fail with. */
final class RegistryTestSupport {

    private RegistryTestSupport() {
    }

    /** Builds a registry from YAML entries. */
    static ProviderRegistry build(PluginCatalog catalog, String yaml) {
        return ProviderRegistry.build(catalog, Entries.yaml(yaml), new TestProviderContext(Path.of("state")));
    }

    /** Asserts that building fails with a {@link ConfigurationException}, for chained message checks. */
    static AbstractThrowableAssert<?, ? extends Throwable> assertRejected(PluginCatalog catalog, String yaml) {
        return assertThatThrownBy(() -> build(catalog, yaml)).isInstanceOf(ConfigurationException.class);
    }

    /** Asserts that building fails and gives the exception for checks on its problem list. */
    static ObjectAssert<ConfigurationException> assertProblems(PluginCatalog catalog, String yaml) {
        try {
            build(catalog, yaml).close();
        } catch (ConfigurationException expected) {
            return new ObjectAssert<>(expected);
        }
        throw new AssertionError("expected the configuration to be rejected:\n" + yaml);
    }
}

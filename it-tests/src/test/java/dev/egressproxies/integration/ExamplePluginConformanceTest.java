package dev.egressproxies.integration;

import dev.egressproxies.conformance.ConformanceTarget;
import dev.egressproxies.conformance.ProviderConformanceTest;
import dev.egressproxies.conformance.TestProviderContext;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conformance suite run against the example third-party plugin, which the registry finds
 * only through its {@code META-INF/services} file and builds from {@code conformance/example.yaml};
 * described by the profile the plugin declares, as {@code egressctl conformance} describes it. It
 * has one zone and no hang or unreadable-zone hooks; the suite asserts those lacks.
 */
class ExamplePluginConformanceTest extends ProviderConformanceTest {
    private static final String ENTRY = "example-conformance";

    @TempDir
    Path stateDirectory;

    @Override
    protected ConformanceTarget createTarget() throws Exception {
        return ConfiguredProviders.target("/conformance/example.yaml", ENTRY, new TestProviderContext(stateDirectory))
                .callTimeout(Duration.ofSeconds(10))
                .build();
    }
}

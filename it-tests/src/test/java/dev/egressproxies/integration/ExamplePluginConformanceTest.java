package dev.egressproxies.integration;

import dev.egressproxies.conformance.TestProviderContext;
import dev.egressproxies.api.Placement;
import dev.egressproxies.conformance.Capability;
import dev.egressproxies.conformance.ConformanceTarget;
import dev.egressproxies.conformance.ProviderConformanceTest;
import dev.egressproxies.example.ExampleProvider;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conformance suite run against the example third-party plugin, which the registry finds
 * only through its {@code META-INF/services} file and builds from {@code conformance/example.yaml}.
 * It has one zone and no hang or unreadable-zone hooks; the suite asserts those lacks.
 */
class ExamplePluginConformanceTest extends ProviderConformanceTest {
    private static final String ENTRY = "example-conformance";

    @TempDir
    Path stateDirectory;

    @Override
    protected ConformanceTarget createTarget() throws Exception {
        ExampleProvider example = ConfiguredProviders.provider("/conformance/example.yaml", ENTRY,
                ExampleProvider.class, new TestProviderContext(stateDirectory));
        return ConformanceTarget.builder(example, ENTRY)
                .capabilities(Capability.REACHES_RUNNING, Capability.PLANTS_UNMANAGED_INSTANCES,
                        Capability.STOPS_INSTANCES)
                .placement(new Placement("lab", "tiny", "alpine"))
                .malformedId("lab/not-an-example-id")
                .unknownId("i-0000000000000000")
                .stateTimeout(Duration.ofSeconds(5))
                .callTimeout(Duration.ofSeconds(10))
                .harness(new ExampleHarness(example))
                .build();
    }
}

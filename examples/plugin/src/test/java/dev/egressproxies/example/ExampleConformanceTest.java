package dev.egressproxies.example;

import dev.egressproxies.api.Placement;
import dev.egressproxies.conformance.Capability;
import dev.egressproxies.conformance.ConformanceTarget;
import dev.egressproxies.conformance.ProviderConformanceTest;
import dev.egressproxies.conformance.TestProviderContext;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.io.TempDir;

/** The example plugin proves itself with the conformance suite, as any plugin outside this repository would. */
class ExampleConformanceTest extends ProviderConformanceTest {
    @TempDir
    Path temp;

    @Override
    protected ConformanceTarget createTarget() {
        // A new provider per case; the suite closes it.
        ExampleProvider provider = new ExampleProviderFactory().create("example-1",
                new ExampleConfig("lab", Set.of("tiny"), Set.of("alpine"), Duration.ZERO), new TestProviderContext(temp));
        return ConformanceTarget.builder(provider, "example-1")
                .capabilities(Capability.REACHES_RUNNING)
                .placement(new Placement("lab", "tiny", "alpine"))
                .malformedId("lab/not-an-example-id")
                .unknownId("i-0000000000000000")
                .stateTimeout(Duration.ofSeconds(5))
                .callTimeout(Duration.ofSeconds(10))
                .build();
    }
}

package dev.egressproxies.example;

import dev.egressproxies.conformance.ConformanceTarget;
import dev.egressproxies.conformance.ProviderConformanceTest;
import dev.egressproxies.conformance.TestProviderContext;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example plugin proves itself with the conformance suite, as any plugin outside this
 * repository would, described by the same profile that {@code egressctl conformance} uses.
 */
class ExampleConformanceTest extends ProviderConformanceTest {
    @TempDir
    Path temp;

    @Override
    protected ConformanceTarget createTarget() {
        // A new provider per case; the suite closes it.
        ExampleProviderFactory factory = new ExampleProviderFactory();
        ExampleConfig config = new ExampleConfig("lab", Set.of("tiny"), Set.of("alpine"), Duration.ZERO);
        TestProviderContext context = new TestProviderContext(temp);
        ExampleProvider provider = factory.create("example-1", config, context);
        return ConformanceTarget.builder(provider, "example-1")
                .profile(factory.conformanceProfile("example-1", config, provider, context).orElseThrow())
                .callTimeout(Duration.ofSeconds(10))
                .build();
    }
}

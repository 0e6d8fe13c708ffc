package dev.egressproxies.integration;

import dev.egressproxies.conformance.TestProviderContext;
import dev.egressproxies.api.Placement;
import dev.egressproxies.conformance.Capability;
import dev.egressproxies.conformance.ConformanceTarget;
import dev.egressproxies.conformance.ProviderConformanceTest;
import dev.egressproxies.fake.FakeProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conformance suite run against the fake backend in memory, built from
 * {@code conformance/fake.yaml} through the registry; with every hook its fault injector offers.
 */
class FakeProviderConformanceTest extends ProviderConformanceTest {
    private static final String ENTRY = "fake-conformance";

    @TempDir
    Path stateDirectory;

    @Override
    protected ConformanceTarget createTarget() throws Exception {
        FakeProvider fake = ConfiguredProviders.provider("/conformance/fake.yaml", ENTRY, FakeProvider.class,
                new TestProviderContext(stateDirectory));
        return ConformanceTarget.builder(fake, ENTRY)
                // An in-memory fake keeps its instances in a store of its own, so no second entry can
                // be on the same infrastructure: one built from the same settings would see none of
                // this entry's instances and answer NOT_FOUND, not the PERMANENT the suite requires.
                // FileBackedFakeConformanceTest declares the capability through a shared state file.
                // Its images are a configured list, not an open namespace (OpenImageNamespaceConformanceTest).
                .capabilities(EnumSet.complementOf(EnumSet.of(Capability.BUILDS_ANOTHER_ENTRY,
                        Capability.OPEN_IMAGE_NAMESPACE)).toArray(Capability[]::new))
                .placement(new Placement("zone-a", "small", "debian-12"))
                .placement(new Placement("zone-b", "large", "debian-12"))
                .malformedId("not-a-fake-id")
                .unknownId("zone-a/never-created")
                .stateTimeout(Duration.ofSeconds(5))
                .callTimeout(Duration.ofSeconds(10))
                .harness(new FakeHarness(fake))
                .build();
    }
}

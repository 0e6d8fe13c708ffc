package dev.egressproxies.integration;

import dev.egressproxies.api.Placement;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.conformance.Capability;
import dev.egressproxies.conformance.ConformanceTarget;
import dev.egressproxies.conformance.ProviderConformanceTest;
import dev.egressproxies.conformance.TestProviderContext;
import dev.egressproxies.fake.FakeConformanceHarness;
import dev.egressproxies.fake.FakeProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conformance suite run against the fake backend in memory, built from
 * {@code conformance/fake.yaml} through the registry; with every hook its fault injector offers.
 */
class FakeProviderConformanceTest extends ProviderConformanceTest {
    static final String ENTRY = "fake-conformance";

    @TempDir
    Path stateDirectory;

    @Override
    protected ConformanceTarget createTarget() throws Exception {
        FakeProvider fake = ConfiguredProviders.provider("/conformance/fake.yaml", ENTRY, FakeProvider.class,
                new TestProviderContext(stateDirectory));
        // Its images are a configured list, not an open namespace (OpenImageNamespaceConformanceTest).
        return target(fake, fake, "debian-12", EnumSet.of(Capability.OPEN_IMAGE_NAMESPACE));
    }

    /**
     * The in-memory fake of {@code conformance/fake.yaml} as a target, seen through {@code provider}
     * (the fake itself, or a wrapper) with {@code image} in its placements: every hook its fault
     * injector offers. An in-memory fake keeps its instances in a store of its own, so no second
     * entry can be on the same infrastructure: one built from the same settings would see none of
     * this entry's instances and answer NOT_FOUND, not the PERMANENT the suite requires;
     * FileBackedFakeConformanceTest declares that capability through a shared state file.
     */
    static ConformanceTarget target(Provider provider, FakeProvider fake, String image, Set<Capability> lacking) {
        EnumSet<Capability> without = EnumSet.of(Capability.BUILDS_ANOTHER_ENTRY);
        without.addAll(lacking);
        return ConformanceTarget.builder(provider, ENTRY)
                .capabilities(EnumSet.complementOf(without).toArray(Capability[]::new))
                .placement(new Placement("zone-a", "small", image))
                .placement(new Placement("zone-b", "large", image))
                .malformedId("not-a-fake-id")
                .unknownId("zone-a/never-created")
                .stateTimeout(Duration.ofSeconds(5))
                .callTimeout(Duration.ofSeconds(10))
                .harness(new FakeConformanceHarness(fake, null))
                .build();
    }
}

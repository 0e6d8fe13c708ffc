package dev.egressproxies.integration;

import dev.egressproxies.api.Placement;
import dev.egressproxies.api.conformance.Capability;
import dev.egressproxies.api.conformance.ConformanceHarness;
import dev.egressproxies.conformance.ConformanceTarget;
import dev.egressproxies.conformance.ProviderConformanceTest;
import dev.egressproxies.conformance.TestProviderContext;
import dev.egressproxies.fake.FakeConformanceHarness;
import dev.egressproxies.fake.FakeProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conformance suite run against the fake backend kept in a state file, built from
 * {@code conformance/fake-file-state.yaml}: one zone, and a boot that outlasts every test, so
 * it declares neither {@link Capability#MULTIPLE_ZONES} nor {@link Capability#REACHES_RUNNING}
 * and the suite asserts the behaviour the contract allows without them (the behaviour a VM
 * without a guest agent shows). Its second entry shares the state file, which backs
 * {@link Capability#BUILDS_ANOTHER_ENTRY}.
 */
class FileBackedFakeConformanceTest extends ProviderConformanceTest {
    private static final String CONFIG = "/conformance/fake-file-state.yaml";
    private static final String ENTRY = "fake-file-state";
    private static final String OTHER_ENTRY = "fake-file-state-other";

    @TempDir
    Path stateDirectory;

    @Override
    protected ConformanceTarget createTarget() throws Exception {
        TestProviderContext context = new TestProviderContext(stateDirectory);
        FakeProvider fake = ConfiguredProviders.provider(CONFIG, ENTRY, FakeProvider.class, context);
        return ConformanceTarget.builder(fake, ENTRY)
                .capabilities(Capability.PLANTS_UNMANAGED_INSTANCES, Capability.STOPS_INSTANCES,
                        Capability.HANGS_ON_DEMAND, Capability.MAKES_ZONES_UNREADABLE,
                        Capability.BUILDS_ANOTHER_ENTRY, Capability.MANAGES_IMAGES)
                .placement(new Placement("zone-a", "small", "debian-12"))
                .malformedId("zone-a/")
                .unknownId("zone-a/never-created")
                // Without REACHES_RUNNING this is how long the suite watches an instance not boot.
                .stateTimeout(Duration.ofSeconds(1))
                .callTimeout(Duration.ofSeconds(10))
                .harness(new FakeConformanceHarness(fake, () -> otherEntry(context)))
                .build();
    }

    /** The second entry of the configuration, on the same state file in the same state directory. */
    private static ConformanceHarness.Entry otherEntry(TestProviderContext context) {
        try {
            return new ConformanceHarness.Entry(ConfiguredProviders.provider(CONFIG, OTHER_ENTRY, FakeProvider.class,
                    context), OTHER_ENTRY);
        } catch (IOException unreadable) {
            throw new UncheckedIOException(unreadable);
        }
    }
}

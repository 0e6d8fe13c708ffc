package dev.egressproxies.conformance;

import org.junit.jupiter.api.extension.ExtendWith;

/** The suite as {@link ConformanceRun} starts it: each case's target comes from the run under way. */
@ExtendWith(ConformanceRun.Cancellation.class)
class ConfiguredEntryConformanceTest extends ProviderConformanceTest {
    @Override
    protected ConformanceTarget createTarget() {
        return ConformanceRun.nextTarget();
    }
}

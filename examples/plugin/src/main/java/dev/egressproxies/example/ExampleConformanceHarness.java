package dev.egressproxies.example;

import dev.egressproxies.api.Placement;
import dev.egressproxies.api.conformance.ConformanceHarness;

/**
 * The conformance hooks of the example plugin: it can plant unmanaged instances and stop
 * instances, but never blocks, so it has no hang or unreadable-zone hooks.
 */
final class ExampleConformanceHarness implements ConformanceHarness {
    private final ExampleProvider example;

    ExampleConformanceHarness(ExampleProvider example) {
        this.example = example;
    }

    @Override
    public String plantUnmanaged(Placement placement, String name) {
        return example.plantUnmanaged(name);
    }

    @Override
    public void stop(String id) {
        example.stop(id);
    }
}

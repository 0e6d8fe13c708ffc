package dev.egressproxies.integration;

import dev.egressproxies.api.Placement;
import dev.egressproxies.conformance.ConformanceHarness;
import dev.egressproxies.example.ExampleProvider;

/**
 * The conformance hooks of the example plugin: it can plant unmanaged instances and stop
 * instances, but never blocks, so it has no hang or unreadable-zone hooks.
 */
final class ExampleHarness implements ConformanceHarness {
    private final ExampleProvider example;

    ExampleHarness(ExampleProvider example) {
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

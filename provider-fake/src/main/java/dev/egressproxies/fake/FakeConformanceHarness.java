package dev.egressproxies.fake;

import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.conformance.ConformanceHarness;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The conformance hooks of a fake entry, through its test methods and fault injector. Planted
 * instances are removed again on {@link #restore()}: in a state file they would outlive the run.
 */
public final class FakeConformanceHarness implements ConformanceHarness {
    private final FakeProvider fake;
    /** Builds a second entry on the fake's state file, or {@code null} when it has none to share. */
    private final Supplier<Entry> anotherEntry;
    private final List<String> planted = new ArrayList<>();

    /**
     * The hooks of {@code fake}.
     *
     * @param anotherEntry builds a second entry on the fake's state file; {@code null} when it
     *                     has none to share (an in-memory fake)
     */
    public FakeConformanceHarness(FakeProvider fake, Supplier<Entry> anotherEntry) {
        this.fake = fake;
        this.anotherEntry = anotherEntry;
    }

    @Override
    public Entry anotherEntry() {
        return anotherEntry == null ? ConformanceHarness.super.anotherEntry() : anotherEntry.get();
    }

    @Override
    public String plantUnmanaged(Placement placement, String name) {
        String id = fake.addUnmanaged(placement.zone(), name);
        planted.add(id);
        return id;
    }

    @Override
    public void stop(String id) {
        fake.stop(id);
    }

    @Override
    public void hang(Operation operation) {
        fake.faults().hang(operation);
    }

    @Override
    public void makeZoneUnreadable(String zone) {
        fake.faults().makeZoneUnreadable(zone);
    }

    @Override
    public void restore() {
        fake.faults().clear();
        planted.forEach(fake::removeUnmanaged);
        planted.clear();
    }
}

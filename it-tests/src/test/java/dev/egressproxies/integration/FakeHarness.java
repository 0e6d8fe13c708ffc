package dev.egressproxies.integration;

import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Placement;
import dev.egressproxies.conformance.ConformanceHarness;
import dev.egressproxies.fake.FakeProvider;
import java.util.function.Supplier;

/**
 * The conformance hooks of the fake backend, through its test methods and fault injector.
 *
 * <p>Planted instances need no removal: every test gets a fake of its own, in memory or in a
 * state file in the test's temporary directory.
 */
final class FakeHarness implements ConformanceHarness {
    private final FakeProvider fake;
    /** Builds a second entry on the fake's state file, or {@code null} when it has none to share. */
    private final Supplier<Entry> anotherEntry;

    /** The hooks of a fake that shares its instances with no other entry: it has no {@link #anotherEntry()}. */
    FakeHarness(FakeProvider fake) {
        this(fake, null);
    }

    /** The hooks of a file-backed fake, with {@code anotherEntry} building an entry on the same state file. */
    FakeHarness(FakeProvider fake, Supplier<Entry> anotherEntry) {
        this.fake = fake;
        this.anotherEntry = anotherEntry;
    }

    @Override
    public Entry anotherEntry() {
        return anotherEntry == null ? ConformanceHarness.super.anotherEntry() : anotherEntry.get();
    }

    @Override
    public String plantUnmanaged(Placement placement, String name) {
        return fake.addUnmanaged(placement.zone(), name);
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
    }
}

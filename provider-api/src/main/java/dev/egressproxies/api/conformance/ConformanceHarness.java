package dev.egressproxies.api.conformance;

import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.Provider;

/**
 * The hooks through which the suite does to a backend what no provider call can: plant foreign
 * instances, stop instances, make the backend hang or a zone unreadable.
 *
 * <p>Every hook is optional. A hook a harness does not implement throws
 * {@link UnsupportedOperationException} (the default), and its target must then not declare the
 * matching {@link Capability}; the suite checks that declaration and harness agree. The suite
 * calls {@link #restore()} after every test, before it deletes what the test created.
 *
 * <p>A harness is main code of the plugin (see {@link ConformanceProfile}): its hooks act on the
 * real backend of the entry under test, best through the provider's own connections.
 *
 * @since 1.0.0
 */
public interface ConformanceHarness {

    /**
     * A harness without any hooks.
     *
     * @since 1.0.0
     */
    ConformanceHarness NONE = new ConformanceHarness() {
    };

    /**
     * Creates an instance in the backend the way someone other than this platform would, so it
     * lacks the managed marking. Backs {@link Capability#PLANTS_UNMANAGED_INSTANCES}.
     *
     * @param placement where to put it, one of the target's placements
     * @param name      its name, unique to the calling test
     * @return its provider ID
     * @since 1.0.0
     */
    default String plantUnmanaged(Placement placement, String name) {
        throw unsupported("plantUnmanaged");
    }

    /**
     * Stops an instance behind the provider's back, as a host reboot or an operator would. Backs
     * {@link Capability#STOPS_INSTANCES}.
     *
     * @param id the instance's provider ID
     * @since 1.0.0
     */
    default void stop(String id) {
        throw unsupported("stop");
    }

    /**
     * Makes the backend stop answering {@code operation} until {@link #restore()}; hanging other
     * operations too is fine (stopping a hypervisor process hangs everything). Backs
     * {@link Capability#HANGS_ON_DEMAND}.
     *
     * @since 1.0.0
     */
    default void hang(Operation operation) {
        throw unsupported("hang");
    }

    /**
     * Makes the zone's host or region unreadable until {@link #restore()}, so listing it fails.
     * Backs {@link Capability#MAKES_ZONES_UNREADABLE}.
     *
     * @since 1.0.0
     */
    default void makeZoneUnreadable(String zone) {
        throw unsupported("makeZoneUnreadable");
    }

    /**
     * Builds a provider for a second entry of the target's type, under another entry name and on
     * the same infrastructure, so the target's placements are valid for it too (the same hosts,
     * account or state, whatever the backend places instances in). The suite deletes what it
     * creates through it and closes it. Backs {@link Capability#BUILDS_ANOTHER_ENTRY}.
     *
     * @return the provider, with its entry name
     * @since 1.0.0
     */
    default Entry anotherEntry() {
        throw unsupported("anotherEntry");
    }

    /**
     * A provider with the name of its entry.
     *
     * @param provider  the provider
     * @param entryName its configured entry name
     * @since 1.0.0
     */
    record Entry(Provider provider, String entryName) {
    }

    /**
     * Undoes every hook applied since the last call (hangs, unreadable zones, planted instances),
     * so the suite can clean up and the next test starts healthy. Does nothing by default.
     *
     * @since 1.0.0
     */
    default void restore() {
    }

    private static UnsupportedOperationException unsupported(String hook) {
        return new UnsupportedOperationException("this conformance harness has no '" + hook + "' hook");
    }
}

package dev.egressproxies.example;

import dev.egressproxies.api.Instance;
import dev.egressproxies.api.InstanceState;
import java.time.Duration;
import java.time.Instant;

/**
 * What the example backend keeps about one instance; immutable, replaced on every change.
 *
 * @param id        its opaque provider ID
 * @param name      its name
 * @param uid       the UID it was created with, {@code ""} when unmanaged
 * @param createdAt when this platform created it, {@code null} when unmanaged
 * @param managed   whether this platform created it
 * @param startedAt when it was last started, {@code null} while stopped
 * @param ip        the address it has once booted
 */
record ExampleInstance(String id, String name, String uid, Instant createdAt, boolean managed,
                       Instant startedAt, String ip) {

    /** This instance, stopped. */
    ExampleInstance stopped() {
        return new ExampleInstance(id, name, uid, createdAt, managed, null, ip);
    }

    /** This instance, started at {@code now}; one that runs already stays as it is. */
    ExampleInstance startedAt(Instant now) {
        return startedAt != null ? this : new ExampleInstance(id, name, uid, createdAt, managed, now, ip);
    }

    /** How the contract reports it at {@code now}: booting until {@code bootDelay} has passed. */
    Instance describe(Instant now, Duration bootDelay) {
        boolean active = startedAt != null;
        boolean booted = active && !now.isBefore(startedAt.plus(bootDelay));
        return new Instance(id, name, booted ? ip : "", InstanceState.of(active, booted ? ip : ""), uid, createdAt);
    }
}

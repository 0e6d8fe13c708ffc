package dev.egressproxies.example;

import dev.egressproxies.api.Instance;
import dev.egressproxies.api.InstanceState;
import dev.egressproxies.api.Placement;
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
 * @param placement the placement it was created with, its zone resolved
 * @param userDataSha256 the sha256 of the user-data it was created with, {@code ""} when unmanaged
 */
record ExampleInstance(String id, String name, String uid, Instant createdAt, boolean managed,
                       Instant startedAt, String ip, Placement placement, String userDataSha256) {

    /** This instance, stopped. */
    ExampleInstance stopped() {
        return new ExampleInstance(id, name, uid, createdAt, managed, null, ip, placement, userDataSha256);
    }

    /** This instance, started at {@code now}; one that runs already stays as it is. */
    ExampleInstance startedAt(Instant now) {
        return startedAt != null ? this
                : new ExampleInstance(id, name, uid, createdAt, managed, now, ip, placement, userDataSha256);
    }

    /** How the contract reports it at {@code now}: booting until {@code bootDelay} has passed. */
    Instance describe(Instant now, Duration bootDelay) {
        boolean active = startedAt != null;
        boolean booted = active && !now.isBefore(startedAt.plus(bootDelay));
        return new Instance(id, name, booted ? ip : "", InstanceState.of(active, booted ? ip : ""), uid, createdAt,
                placement, userDataSha256);
    }
}

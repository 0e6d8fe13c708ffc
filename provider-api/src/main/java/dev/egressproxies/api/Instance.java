package dev.egressproxies.api;

import java.time.Instant;
import java.util.Objects;

/**
 * What a provider reports about one instance.
 *
 * @param id        the provider ID that {@link Provider#create} returned for it
 * @param name      the name it was created with
 * @param ip        its address, or {@code ""} while none is known
 * @param state     its life-cycle state; {@link InstanceState#RUNNING} only with a non-empty IP
 * @param uid       the UID it was created with ({@code ""} for an instance this platform did not create)
 * @param createdAt when this platform created it, or {@code null} when unknown
 */
public record Instance(String id, String name, String ip, InstanceState state, String uid, Instant createdAt) {
    /** Checks the contract's invariants: an ID and a state, and no RUNNING without an address. */
    public Instance {
        Objects.requireNonNull(id, "id");
        name = Objects.requireNonNullElse(name, "");
        ip = Objects.requireNonNullElse(ip, "");
        Objects.requireNonNull(state, "state");
        uid = Objects.requireNonNullElse(uid, "");
        if (state == InstanceState.RUNNING && ip.isEmpty()) {
            throw new IllegalArgumentException("instance " + id + " cannot be RUNNING without an IP");
        }
    }
}

package dev.egressproxies.api;

import java.time.Instant;
import java.util.Objects;

/**
 * What a provider reports about one instance.
 *
 * <p>{@code placement} and {@code userDataSha256} are what the instance was created with, as the
 * backend recorded them at create time. A backend records them and reports them through the
 * canonical (eight-component) constructor; the conformance suite fails a backend whose
 * {@link Provider#get} or {@link Provider#listManaged} reports them unknown for an instance it
 * created. A field is {@code ""} only for an instance created before its backend recorded it (one
 * found on a host, made by an older version); a caller comparing them against a desired
 * placement, such as {@code egressctl apply}, treats {@code ""} as "unknown" and never acts on it.
 *
 * @param id        the provider ID that {@link Provider#create} returned for it
 * @param name      the name it was created with
 * @param ip        its address, or {@code ""} while none is known
 * @param state     its life-cycle state; {@link InstanceState#RUNNING} only with a non-empty IP
 * @param uid       the UID it was created with ({@code ""} for an instance this platform did not create)
 * @param createdAt when this platform created it, or {@code null} when unknown
 * @param placement the zone, machine type and image it was created with; fields are {@code ""} when
 *                  unknown
 * @param userDataSha256 the {@linkplain CreateRequest#cloudInitSha256() sha256} of the user-data it was
 *                  created with, or {@code ""} when unknown
 * @since 1.0.0
 */
public record Instance(String id, String name, String ip, InstanceState state, String uid, Instant createdAt,
                       Placement placement, String userDataSha256) {
    /**
     * Checks the contract's invariants: an ID and a state, and no RUNNING without an address.
     *
     * @since 1.0.0
     */
    public Instance {
        Objects.requireNonNull(id, "id");
        name = Objects.requireNonNullElse(name, "");
        ip = Objects.requireNonNullElse(ip, "");
        Objects.requireNonNull(state, "state");
        uid = Objects.requireNonNullElse(uid, "");
        placement = Objects.requireNonNullElse(placement, Placement.UNKNOWN);
        userDataSha256 = Objects.requireNonNullElse(userDataSha256, "");
        if (state == InstanceState.RUNNING && ip.isEmpty()) {
            throw new IllegalArgumentException("instance " + id + " cannot be RUNNING without an IP");
        }
    }

    /**
     * An instance whose placement and user-data are unknown, as backends built before
     * {@link Instance} carried them report it.
     *
     * @since 1.0.0
     */
    public Instance(String id, String name, String ip, InstanceState state, String uid, Instant createdAt) {
        this(id, name, ip, state, uid, createdAt, Placement.UNKNOWN, "");
    }
}

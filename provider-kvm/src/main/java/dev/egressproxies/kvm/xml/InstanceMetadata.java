package dev.egressproxies.kvm.xml;

import java.time.Instant;
import java.util.Objects;

/**
 * What this platform records in a domain it creates, in the domain's own metadata: the owner's
 * UID and the creation time. A domain that carries the element in {@link #NAMESPACE} is managed
 * by this platform; every other domain on a host is left alone.
 *
 * <p>The element, as libvirt stores it under {@code <metadata>}:
 * <pre>{@code
 * <ep:instance xmlns:ep="https://egressproxies.dev/xmlns/instance/1">
 *   <ep:uid>6f0c...</ep:uid>
 *   <ep:created>2025-01-31T12:00:00Z</ep:created>
 * </ep:instance>
 * }</pre>
 *
 * @param uid       the UID the instance was created with
 * @param createdAt when it was created
 */
public record InstanceMetadata(String uid, Instant createdAt) {
    /** The platform's XML namespace; the version suffix changes only with an incompatible format. */
    public static final String NAMESPACE = "https://egressproxies.dev/xmlns/instance/1";
    /** The prefix the element is written with; readers go by the namespace, not the prefix. */
    public static final String PREFIX = "ep";
    /** The element's local name. */
    public static final String ELEMENT = "instance";
    /** The local name of the child holding the UID. */
    public static final String UID_ELEMENT = "uid";
    /** The local name of the child holding the creation time, ISO-8601 in UTC. */
    public static final String CREATED_ELEMENT = "created";

    /** Requires both values. */
    public InstanceMetadata {
        Objects.requireNonNull(uid, "uid");
        Objects.requireNonNull(createdAt, "createdAt");
    }
}

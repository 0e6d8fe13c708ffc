package dev.egressproxies.kvm.common.xml;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

/**
 * What this platform records in a domain it creates, in its own XML namespace: the instance's UID
 * and creation time. Its presence is what marks a domain as managed by the platform.
 *
 * <p>The element is {@code <ep:instance xmlns:ep="https://egressproxies.dev/xmlns/instance/1">}
 * holding {@code <ep:uid>} and {@code <ep:created>} (RFC 3339, UTC, whole seconds).
 *
 * @param uid       the UID the caller gave the instance
 * @param createdAt when the domain was defined, to the second
 */
public record InstanceMetadata(String uid, Instant createdAt) {
    /** The platform's XML namespace for domain metadata; versioned, never reused for another shape. */
    public static final String NAMESPACE = "https://egressproxies.dev/xmlns/instance/1";
    /** The prefix the namespace is written with. */
    public static final String PREFIX = "ep";

    /** Requires both; keeps whole seconds, which is what the XML carries. */
    public InstanceMetadata {
        Objects.requireNonNull(uid, "uid");
        Objects.requireNonNull(createdAt, "createdAt");
        if (uid.isBlank()) {
            throw new IllegalArgumentException("the instance UID is blank");
        }
        createdAt = createdAt.truncatedTo(ChronoUnit.SECONDS);
    }

    /**
     * Reads the element back from what libvirt returns for the namespace (libvirt may return it
     * with or without the namespace); tolerant of whitespace and formatting, bounded in size.
     *
     * @throws IllegalArgumentException when it is too large, not well-formed, or lacks a field
     */
    public static InstanceMetadata parse(String xml) {
        return InstanceMetadataXml.parse(xml);
    }
}

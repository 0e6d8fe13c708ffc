package dev.egressproxies.kvm.common.xml;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.Optional;

/**
 * What this platform records in a domain it creates, in its own XML namespace: the instance's UID,
 * its creation time, the provider entry that created it, and what it was created as (machine type,
 * image, user-data digest). Its presence is what marks a domain as made by the platform; the entry
 * is what makes it one entry's and no other's, so entries that share a hypervisor never list, read,
 * delete or take over each other's domains.
 *
 * <p>The element is {@code <ep:instance xmlns:ep="https://egressproxies.dev/xmlns/instance/1">}
 * holding {@code <ep:uid>}, {@code <ep:created>} (RFC 3339, UTC, whole seconds), {@code <ep:entry>},
 * {@code <ep:machineType>}, {@code <ep:image>} and {@code <ep:userDataSha256>}. Domains defined
 * before entries were recorded lack {@code <ep:entry>}; they are read with an empty {@link #entry()}
 * and belong to no entry. Domains defined before the placement was recorded lack the last three,
 * read as {@code ""} (unknown); so does an image that was not recorded because it may hold a secret.
 * The namespace stays the same: the element only gained optional fields, which readers of an older
 * shape ignore.
 *
 * @param uid            the UID the caller gave the instance
 * @param createdAt      when the domain was defined, to the second
 * @param entry          the name of the provider entry that created the domain, or empty for a
 *                       domain defined before entries were recorded
 * @param machineType    the machine type it was created as, or {@code ""} when unknown
 * @param image          the image it was created from as the request named it, or {@code ""} when unknown
 * @param userDataSha256 the lower-case hex sha256 of its user-data, or {@code ""} when unknown
 */
public record InstanceMetadata(String uid, Instant createdAt, Optional<String> entry, String machineType,
                               String image, String userDataSha256) {
    /** The platform's XML namespace for domain metadata; versioned, never reused for another shape. */
    public static final String NAMESPACE = "https://egressproxies.dev/xmlns/instance/1";
    /** The prefix the namespace is written with. */
    public static final String PREFIX = "ep";

    /** Requires every field and a non-blank entry when there is one; keeps whole seconds, which is what the XML carries. */
    public InstanceMetadata {
        Objects.requireNonNull(uid, "uid");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(entry, "entry");
        Objects.requireNonNull(machineType, "machineType");
        Objects.requireNonNull(image, "image");
        Objects.requireNonNull(userDataSha256, "userDataSha256");
        if (uid.isBlank()) {
            throw new IllegalArgumentException("the instance UID is blank");
        }
        if (entry.isPresent() && entry.get().isBlank()) {
            throw new IllegalArgumentException("the provider entry is blank");
        }
        createdAt = createdAt.truncatedTo(ChronoUnit.SECONDS);
    }

    /** Metadata without a recorded placement, as domains defined before it was recorded carry. */
    public InstanceMetadata(String uid, Instant createdAt, Optional<String> entry) {
        this(uid, createdAt, entry, "", "", "");
    }

    /** The metadata of a domain that {@code entry} created, without a recorded placement. */
    public InstanceMetadata(String uid, Instant createdAt, String entry) {
        this(uid, createdAt, Optional.of(entry));
    }

    /** Whether the domain was created through the provider entry of that name. */
    public boolean createdThrough(String entryName) {
        return entry.filter(entryName::equals).isPresent();
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

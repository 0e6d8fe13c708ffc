package dev.egressproxies.api;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A base image a backend keeps in one zone: the bytes of an image, fetched once, that the disks of
 * the zone's instances back on. {@link Provider#images} reports them.
 *
 * @param zone           the zone (for the KVM backends, the host) that holds it
 * @param name           its name in the zone (for the KVM backends, the base volume), as
 *                       {@link PrunedImage} names it
 * @param key            the image as placements name it: a catalogue key, or {@code "url"} for an
 *                       image given by its URL; {@code ""} when unknown
 * @param source         where it was fetched from, redacted to scheme, host and port (never a path,
 *                       query or credentials); {@code ""} when the base does not record it
 * @param sha256         the sha256 of the file as published, {@code ""} when not recorded
 * @param format         the disk format ({@code qcow2}, {@code raw}), {@code ""} when unknown
 * @param virtualBytes   the size of the disk it holds; 0 when unknown
 * @param allocatedBytes the space it takes in its zone; 0 when unknown
 * @param createdAt      when it was fetched; {@code null} when unknown
 * @param users          the names of the instances (or, for a disk no instance uses, of that disk)
 *                       that back on it, sorted; empty when none does
 * @param lease          whether a fetch (or a prune) holds it right now
 * @param leaseDetail    who holds the lease until when, or why it is stale; {@code ""} without lease
 * @param legacy         whether it was made before bases recorded their source: such a base is never
 *                       used for a new instance again, only kept for those that back on it
 * @since 1.2.0
 */
public record BaseImage(String zone, String name, String key, String source, String sha256, String format,
                        long virtualBytes, long allocatedBytes, Instant createdAt, List<String> users,
                        LeaseState lease, String leaseDetail, boolean legacy) {

    /**
     * Normalises absent texts to {@code ""} and copies the users.
     *
     * @since 1.2.0
     */
    public BaseImage {
        Objects.requireNonNull(zone, "zone");
        Objects.requireNonNull(name, "name");
        key = Objects.requireNonNullElse(key, "");
        source = Objects.requireNonNullElse(source, "");
        sha256 = Objects.requireNonNullElse(sha256, "");
        format = Objects.requireNonNullElse(format, "");
        users = List.copyOf(users);
        lease = Objects.requireNonNullElse(lease, LeaseState.NONE);
        leaseDetail = Objects.requireNonNullElse(leaseDetail, "");
    }

    /**
     * Whether no instance backs on it, so {@link Provider#pruneImages} may delete it.
     *
     * @since 1.2.0
     */
    public boolean unused() {
        return users.isEmpty();
    }

    /**
     * The lease of a base: a lock that a fetch (or a prune) of it holds, across processes.
     *
     * @since 1.2.0
     */
    public enum LeaseState {
        /**
         * No lease: nothing fetches or deletes it now.
         *
         * @since 1.2.0
         */
        NONE,
        /**
         * A live process holds it: a fetch (or a prune) is under way.
         *
         * @since 1.2.0
         */
        HELD,
        /**
         * Left by a process that is gone, or expired; the next fetch takes it over.
         *
         * @since 1.2.0
         */
        STALE
    }
}

package dev.egressproxies.api;

import java.time.Instant;
import java.util.Objects;

/**
 * A base image that {@link Provider#pruneImages} deleted, or would delete in a dry run.
 *
 * @param zone           the zone that held it
 * @param name           its name there, as {@link BaseImage#name()} gives it
 * @param key            the image as placements name it, {@code ""} when unknown
 * @param allocatedBytes the space its deletion frees (with its marker, where it has one); 0 when unknown
 * @param createdAt      when it was fetched; {@code null} when unknown
 * @since 1.2.0
 */
public record PrunedImage(String zone, String name, String key, long allocatedBytes, Instant createdAt) {

    /**
     * Checks the names are present.
     *
     * @since 1.2.0
     */
    public PrunedImage {
        Objects.requireNonNull(zone, "zone");
        Objects.requireNonNull(name, "name");
        key = Objects.requireNonNullElse(key, "");
    }
}

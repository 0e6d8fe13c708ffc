package dev.egressproxies.api;

import java.util.Objects;

/**
 * What {@link Provider#pullImage} did in one zone.
 *
 * @param zone    the zone
 * @param name    the base's name there, as {@link BaseImage#name()} gives it
 * @param fetched {@code true} when this call fetched the image; {@code false} when it was there
 *                already, complete, and nothing moved
 * @since 1.2.0
 */
public record PulledImage(String zone, String name, boolean fetched) {

    /**
     * Checks both names are present.
     *
     * @since 1.2.0
     */
    public PulledImage {
        Objects.requireNonNull(zone, "zone");
        Objects.requireNonNull(name, "name");
    }
}

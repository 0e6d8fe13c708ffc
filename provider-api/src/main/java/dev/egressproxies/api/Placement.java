package dev.egressproxies.api;

import java.util.Objects;

/**
 * Where and as what an instance is created: a zone (for the KVM backends, a host), a machine
 * type and an image, each a name the provider entry's configuration defines.
 *
 * @param zone        the zone; {@code ""} lets the backend choose when it has only one
 * @param machineType the machine type name
 * @param image       the image name (or, where a backend allows it, a URL)
 * @since 1.0.0
 */
public record Placement(String zone, String machineType, String image) {
    /**
     * A placement of which nothing is known, as {@link Instance} reports it for older instances.
     *
     * @since 1.0.0
     */
    public static final Placement UNKNOWN = new Placement("", "", "");

    /**
     * Normalises absent values to {@code ""}.
     *
     * @since 1.0.0
     */
    public Placement {
        zone = Objects.requireNonNullElse(zone, "");
        machineType = Objects.requireNonNullElse(machineType, "");
        image = Objects.requireNonNullElse(image, "");
    }
}

package dev.egressproxies.example;

import java.time.Duration;
import java.util.Set;

/**
 * The settings of one {@code example} provider entry: its single zone, the machine types and
 * images it accepts, and how long its instances take to boot.
 *
 * @param zone         the one zone instances go to; required
 * @param machineTypes the machine type names a placement may use; at least one
 * @param images       the image names a placement may use; at least one
 * @param bootDelay    how long an instance stays PROVISIONING once started; zero unless set
 */
public record ExampleConfig(String zone, Set<String> machineTypes, Set<String> images, Duration bootDelay) {

    /** Applies the default boot delay and rejects settings the backend cannot work with. */
    public ExampleConfig {
        if (zone == null || zone.isBlank()) {
            throw new IllegalArgumentException("zone: required; name the zone instances go to");
        }
        if (machineTypes == null || machineTypes.isEmpty()) {
            throw new IllegalArgumentException("machineTypes: list at least one machine type");
        }
        if (images == null || images.isEmpty()) {
            throw new IllegalArgumentException("images: list at least one image");
        }
        machineTypes = Set.copyOf(machineTypes);
        images = Set.copyOf(images);
        bootDelay = bootDelay == null ? Duration.ZERO : bootDelay;
    }
}

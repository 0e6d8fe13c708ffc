package dev.egressproxies.fake;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.ProviderException;
import java.util.List;

/**
 * The check of a create request's placement against the entry's configured zones, machine types
 * and images, made before anything is created.
 */
final class PlacementResolver {
    private final String entry;
    private final List<String> zones;
    private final List<String> machineTypes;
    private final List<String> images;

    PlacementResolver(String entry, FakeConfig config) {
        this.entry = entry;
        this.zones = config.zones();
        this.machineTypes = config.machineTypes();
        this.images = config.images();
    }

    /**
     * Returns the zone the request's instance goes to: the requested one, or the only configured
     * zone when none is requested.
     *
     * @throws ProviderException PERMANENT, naming the field to fix and its valid values
     */
    String zoneFor(CreateRequest request) {
        Placement placement = request.placement();
        String zone = resolveZone(placement.zone(), request.name());
        require(machineTypes.contains(placement.machineType()), request.name(),
                "placement.machineType '" + placement.machineType() + "' is not configured: use one of "
                        + machineTypes + ", or add it to machineTypes of provider entry '" + entry + "'");
        require(images.contains(placement.image()), request.name(),
                "placement.image '" + placement.image() + "' is not configured: use one of " + images
                        + ", or add it to images of provider entry '" + entry + "'");
        return zone;
    }

    /** Whether {@code zone} is one of the configured zones. */
    boolean isConfiguredZone(String zone) {
        return zones.contains(zone);
    }

    /** A configured machine type, for checks of an image alone. */
    String anyMachineType() {
        return machineTypes.isEmpty() ? "" : machineTypes.get(0);
    }

    /** The configured zones, for messages. */
    List<String> zones() {
        return zones;
    }

    private String resolveZone(String zone, String name) {
        if (zone.isEmpty()) {
            // Among several zones, create places it (FakeProvider#place).
            return zones.size() == 1 ? zones.get(0) : "";
        }
        require(zones.contains(zone), name, "placement.zone '" + zone + "' is not configured: use one of "
                + zones + ", or add it to zones of provider entry '" + entry + "'");
        return zone;
    }

    private void require(boolean condition, String name, String problem) {
        if (!condition) {
            throw new ProviderException(ErrorKind.PERMANENT, Operation.CREATE, entry, name, problem);
        }
    }
}

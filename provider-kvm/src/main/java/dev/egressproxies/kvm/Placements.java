package dev.egressproxies.kvm;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.config.KvmConfig;
import dev.egressproxies.kvm.config.KvmHost;
import dev.egressproxies.kvm.config.KvmImage;
import dev.egressproxies.kvm.config.MachineType;

/**
 * The check of placements and provider IDs against the entry's configuration, made before anything
 * on a host is touched: the zone names a configured host (it may be empty only when exactly one is
 * configured), and the machine type and image are configured.
 */
final class Placements {
    private final String entry;
    private final KvmConfig config;

    Placements(String entry, KvmConfig config) {
        this.entry = entry;
        this.config = config;
    }

    /** Where and as what a create request's VM is made. */
    record Resolved(KvmHost host, MachineType machineType, String imageKey, KvmImage image) {
    }

    /**
     * Resolves a validated request's placement.
     *
     * @throws ProviderException PERMANENT, with the request's name as instance ID, naming the field
     *                           to fix and its valid values
     */
    Resolved resolve(CreateRequest request) {
        Placement placement = request.placement();
        KvmHost host = hostForZone(placement.zone(), request.name());
        MachineType machineType = config.machineTypes().get(placement.machineType());
        if (machineType == null) {
            throw placementError(request, "placement.machineType '" + placement.machineType()
                    + "' is not configured: use one of " + config.machineTypes().keySet()
                    + ", or add it to machineTypes of provider entry '" + entry + "'");
        }
        KvmImage image = config.images().get(placement.image());
        if (image == null) {
            throw placementError(request, "placement.image '" + placement.image() + "' is not configured: use one of "
                    + config.images().keySet() + ", or add it to images of provider entry '" + entry + "'");
        }
        return new Resolved(host, machineType, placement.image(), image);
    }

    /**
     * Returns the configured host an ID names.
     *
     * @throws ProviderException PERMANENT when no host of that name is configured
     */
    KvmHost hostOf(ProviderId id, Operation operation) {
        return config.host(id.host()).orElseThrow(() -> new ProviderException(ErrorKind.PERMANENT, operation, entry,
                id.toString(), "host '" + id.host() + "' of this provider ID is not configured in provider entry '"
                + entry + "' (hosts: " + config.hostNames() + "): if the host was removed from the configuration,"
                + " add it back to reach its instances"));
    }

    private KvmHost hostForZone(String zone, String name) {
        if (zone.isEmpty()) {
            if (config.hosts().size() != 1) {
                throw new ProviderException(ErrorKind.PERMANENT, Operation.CREATE, entry, name, "placement.zone is"
                        + " empty, but provider entry '" + entry + "' has " + config.hosts().size()
                        + " hosts: set placement.zone to one of " + config.hostNames());
            }
            return config.hosts().get(0);
        }
        return config.host(zone).orElseThrow(() -> new ProviderException(ErrorKind.PERMANENT, Operation.CREATE, entry,
                name, "placement.zone '" + zone + "' is not a host of provider entry '" + entry + "': use one of "
                + config.hostNames() + ", or add the host to hosts"));
    }

    private ProviderException placementError(CreateRequest request, String detail) {
        return new ProviderException(ErrorKind.PERMANENT, Operation.CREATE, entry, request.name(), detail);
    }
}

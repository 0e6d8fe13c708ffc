package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.config.MachineSize;

/**
 * The check of placements and provider IDs against the entry's configuration, made before anything
 * on a host is touched: the zone names a configured host (it may be empty only when exactly one is
 * configured), the machine type is configured, and the backend knows the image.
 */
final class Placements<I extends ImageChoice> {
    private final EntrySettings settings;
    private final BaseImageStrategy<I> images;

    Placements(EntrySettings settings, BaseImageStrategy<I> images) {
        this.settings = settings;
        this.images = images;
    }

    /** Where and as what a create request's VM is made. */
    record Resolved<I>(HostSettings host, MachineSize machineType, I image) {
    }

    /**
     * Resolves a validated request's placement.
     *
     * @param call the create, with the request's name as instance ID
     * @throws ProviderException PERMANENT, with the request's name as instance ID, naming the field
     *                           to fix and its valid values
     */
    Resolved<I> resolve(CreateRequest request, Call call) {
        Placement placement = request.placement();
        HostSettings host = hostForZone(placement.zone(), call);
        MachineSize machineType = settings.machineTypes().get(placement.machineType());
        if (machineType == null) {
            throw call.permanent("placement.machineType '" + placement.machineType()
                    + "' is not configured: use one of " + settings.machineTypes().keySet()
                    + ", or add it to machineTypes of provider entry '" + settings.entry() + "'");
        }
        return new Resolved<>(host, machineType, images.resolve(placement.image(), host, call));
    }

    /** The position of {@code host} in the entry's hosts, for messages naming its settings ({@code hosts[0].bridge}). */
    int hostIndex(HostSettings host) {
        return settings.hosts().indexOf(host);
    }

    /**
     * Returns the configured host an ID names.
     *
     * @throws ProviderException PERMANENT when no host of that name is configured
     */
    HostSettings hostOf(ProviderId id, Operation operation) {
        String entry = settings.entry();
        return settings.host(id.host()).orElseThrow(() -> new ProviderException(ErrorKind.PERMANENT, operation, entry,
                id.toString(), "host '" + id.host() + "' of this provider ID is not configured in provider entry '"
                + entry + "' (hosts: " + settings.hostNames() + "): if the host was removed from the configuration,"
                + " add it back to reach its instances"));
    }

    private HostSettings hostForZone(String zone, Call call) {
        String entry = settings.entry();
        if (zone.isEmpty()) {
            if (settings.hosts().size() != 1) {
                throw call.permanent("placement.zone is empty, but provider entry '" + entry + "' has "
                        + settings.hosts().size() + " hosts: set placement.zone to one of " + settings.hostNames());
            }
            return settings.hosts().get(0);
        }
        return settings.host(zone).orElseThrow(() -> call.permanent("placement.zone '" + zone
                + "' is not a host of provider entry '" + entry + "': use one of " + settings.hostNames()
                + ", or add the host to hosts"));
    }
}

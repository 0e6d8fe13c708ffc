package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.PreflightCheck;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.libvirt.Domain;
import dev.egressproxies.kvm.common.xml.InstanceMetadata;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The operations every KVM backend shares, on libvirt domains of hypervisors reached through a
 * {@link HostCaller}: create, get, delete, listManaged and the host preflight checks. A backend is
 * this engine plus its {@link BaseImageStrategy}, which says which images exist and how their base
 * volumes get into a host's pool.
 *
 * <p>Provider IDs are {@code host/name} ({@link ProviderId}). Zones are the configured host names.
 * An instance is managed by an entry when its domain carries the platform's metadata element
 * ({@link InstanceMetadata}) naming that entry; domains without it, and domains of other entries
 * or of no entry, are never listed, started or deleted ({@link EntryScope}). Every
 * libvirt call goes through the host caller, which bounds it by the caller's deadline; the engine
 * adds the deadline checks between steps. See {@link InstanceCreator}, {@link InstanceRemover} and
 * {@link ManagedInstanceLister} for what each operation does step by step. Safe for concurrent use.
 *
 * @param <I> the backend's resolved image
 */
public final class InstanceEngine<I extends ImageChoice> implements AutoCloseable {
    private final EntrySettings settings;
    private final Placements<I> placements;
    private final HostCaller hosts;
    private final BaseImageStrategy<I> images;
    private final InstanceCreator<I> creator;
    private final InstanceRemover remover;
    private final ManagedInstanceLister lister;
    private final PoolLeftovers leftovers;

    /**
     * Creates the engine of one provider entry. Does no I/O.
     *
     * @param settings the entry's hosts, machine types, disk size and vendor-data
     * @param hosts    the calls to the entry's hosts; closed with the engine
     * @param images   the backend's images
     * @param clock    the clock for creation times and seeds
     */
    public InstanceEngine(EntrySettings settings, HostCaller hosts, BaseImageStrategy<I> images, Clock clock) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.hosts = Objects.requireNonNull(hosts, "hosts");
        this.images = Objects.requireNonNull(images, "images");
        this.placements = new Placements<>(settings, images);
        KeyedLocks instanceLocks = new KeyedLocks();
        this.creator = new InstanceCreator<>(settings.entry(), settings.diskSizeGb(), placements, hosts, images,
                new SeedImages(clock, settings.vendorData()), clock, instanceLocks);
        // Judges leases only: it never holds one, so its releases (and their clean-up) never run.
        this.leftovers = new PoolLeftovers(images, new FetchLeases(new BaseImageDiscard(hosts)));
        this.remover = new InstanceRemover(settings.entry(), placements, hosts, instanceLocks, leftovers);
        this.lister = new ManagedInstanceLister(settings.entry(), settings.hosts(), hosts);
    }

    /**
     * See {@link dev.egressproxies.api.Provider#create}. Errors about the request or its placement
     * carry the request's name as instance ID, later ones the provider ID. A domain of that name
     * that this entry created is only started; one that this platform did not create, or that
     * another entry or no entry created, fails the call as PERMANENT and is left alone.
     */
    public String create(CreateRequest request, Deadline deadline) {
        return creator.create(request, deadline);
    }

    /**
     * See {@link dev.egressproxies.api.Provider#get}. A domain this platform did not create is
     * reported without UID and creation time; one that another entry, or no entry, created is
     * refused as PERMANENT ({@link EntryScope}).
     */
    public Instance get(String id, Deadline deadline) {
        String entry = settings.entry();
        ProviderId parsed = ProviderId.parse(id, Operation.GET, entry);
        HostSettings host = placements.hostOf(parsed, Operation.GET);
        Call call = new Call(entry, Operation.GET, id, deadline);
        return hosts.call(host, call, libvirt -> {
            Domain domain = LibvirtSteps.step("looking up domain " + parsed.name(),
                    () -> libvirt.lookupDomain(parsed.name()))
                    .orElseThrow(() -> new ProviderException(ErrorKind.NOT_FOUND, Operation.GET, entry, id,
                            "no domain '" + parsed.name() + "' on host '" + host.name()
                                    + "': it was deleted or never created"));
            Optional<InstanceMetadata> metadata = InstanceInspector.readableMetadataOf(libvirt, host, domain, call);
            metadata.ifPresent(ours -> EntryScope.requireThisEntry(ours, host, parsed.name(), call));
            call.checkDeadline();
            return InstanceInspector.describe(libvirt, host.name(), domain, metadata);
        });
    }

    /** See {@link dev.egressproxies.api.Provider#delete}. */
    public void delete(String id, Deadline deadline) {
        remover.delete(id, deadline);
    }

    /** See {@link dev.egressproxies.api.Provider#listManaged}. */
    public List<Instance> listManaged(Deadline deadline) {
        return lister.listManaged(deadline);
    }

    /**
     * See {@link dev.egressproxies.api.Provider#preflight}: per host the connection and its pool,
     * then the machine types, then the backend's image checks, then per host the base images no
     * overlay backs on and the fetch leases left (warnings, {@link PoolLeftovers}).
     */
    public List<PreflightCheck> preflight(Deadline deadline) {
        Call call = new Call(settings.entry(), Operation.PREFLIGHT, "", deadline);
        List<PreflightCheck> checks = new ArrayList<>(HostPreflight.run(settings, hosts, call));
        checks.addAll(images.preflight(call));
        checks.addAll(leftovers.preflight(settings.hosts(), hosts, call));
        return List.copyOf(checks);
    }

    /** Closes the connections to the hosts. */
    @Override
    public void close() {
        hosts.close();
    }
}

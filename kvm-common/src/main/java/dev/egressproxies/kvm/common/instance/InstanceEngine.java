package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.BaseImage;
import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.PreflightCheck;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.api.PrunedImage;
import dev.egressproxies.api.PulledImage;
import dev.egressproxies.api.ZoneChoice;
import dev.egressproxies.api.conformance.Capability;
import dev.egressproxies.api.conformance.ConformanceHarness;
import dev.egressproxies.api.conformance.ConformanceProfile;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.config.MachineSize;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrorCode;
import dev.egressproxies.kvm.common.libvirt.LibvirtException;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.Domain;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StoragePool;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import dev.egressproxies.kvm.common.xml.DomainXml;
import dev.egressproxies.kvm.common.xml.InstanceMetadata;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A KVM backend's {@link Provider}: libvirt domains on the entry's hosts, on its {@link BaseImageStrategy}. */
public abstract class InstanceEngine<I extends ImageChoice> implements Provider {
    private static final Logger LOG = LoggerFactory.getLogger(InstanceEngine.class);
    private static final Duration CONFORMANCE_STATE_WATCH = Duration.ofSeconds(3);
    private static final Duration CONFORMANCE_HOOK_TIMEOUT = Duration.ofMinutes(1);

    private final EntrySettings settings;
    private final HostPool hosts;
    private final BaseImageStrategy<I> images;
    private final InstanceCreator<I> creator;
    private final PoolLeftovers leftovers;
    private final BaseImages bases;
    private final NameClaims claims;
    private final HostCordons cordons;
    private final HostPlacement placement;
    private final KeyedLocks instanceLocks = new KeyedLocks();

    /** Closes {@code hosts} with it; {@code clock} dates creations and seeds. No I/O. */
    protected InstanceEngine(EntrySettings settings, HostPool hosts, BaseImageStrategy<I> images, Clock clock) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.hosts = Objects.requireNonNull(hosts, "hosts");
        this.images = Objects.requireNonNull(images, "images");
        this.claims = new NameClaims(settings, hosts);
        this.cordons = new HostCordons(settings, hosts, LeaseHolder.current(), clock);
        this.placement = new HostPlacement(settings, hosts, cordons);
        // Judges leases only: it never holds one, so its releases (and their clean-up) never run.
        PoolLeases judge = new PoolLeases(new BaseImageDiscard(hosts));
        this.creator = new InstanceCreator<>(settings, hosts, images, cordons, clock, judge);
        // Leases of its own: a create of this process must find a prune's lease live.
        // Lease expiries are read with the machine's clock, as every process's leases are.
        this.bases = new BaseImages(images, PoolLeases.pruning(new BaseImageDiscard(hosts), Clock.systemUTC()), clock);
        this.leftovers = new PoolLeftovers(settings.entry(), bases, judge);
    }

    /** The entry's configured name. */
    protected final String entry() {
        return settings.entry();
    }

    /** {@inheritDoc} The zone names a configured host, or is empty; type and image are known. */
    @Override
    public void validate(CreateRequest request) {
        resolve(request, Optional.empty(), Deadline.none());
    }

    /**
     * {@inheritDoc} A domain of that name this entry created is only started; any other is
     * PERMANENT. With several hosts, all of it happens under the name's claim; a request without
     * zone goes where the name exists, else where {@link #place} would put it.
     */
    @Override
    public String create(CreateRequest request, Deadline deadline) {
        InstanceCreator.Target<I> checked = resolve(request, Optional.empty(), deadline);
        boolean toPlace = request.placement().zone().isEmpty() && settings.hosts().size() > 1;
        Call call = new Call(entry(), Operation.CREATE, toPlace ? request.name()
                : new ProviderId(checked.host().name(), request.name()).toString(), deadline);
        // Keyed by name, not ID: a name is one instance across the entry's hosts.
        return instanceLocks.withLock(request.name(), call, "another create or delete of " + request.name(),
                () -> claims.underClaim(request.name(), call, "creating or deleting " + request.name(),
                        claimed -> createClaimed(request, checked, claimed)));
    }

    /** {@code checked} is the request resolved on its zone's host, or on the first when it names none. */
    private String createClaimed(CreateRequest request, InstanceCreator.Target<I> checked, Call call) {
        if (!request.placement().zone().isEmpty() || settings.hosts().size() == 1) {
            return creator.create(checked, request, withId(call, checked.host(), request.name()));
        }
        Optional<HostSettings> holding = creator.hostHolding(request.name(), call);
        if (holding.isPresent()) {
            InstanceCreator.Target<I> target = resolve(request, holding, call.deadline());
            return creator.createChecked(target, request, withId(call, target.host(), request.name()));
        }
        try (HostPlacement.Reservation reservation = placement.reserve(request.name(), request.placement(), call)) {
            ZoneChoice choice = reservation.choice();
            LOG.info("placing {} of provider entry {} on host {}: {}", request.name(), entry(), choice.zone(),
                    choice.reason());
            InstanceCreator.Target<I> target = resolve(request, settings.host(choice.zone()), call.deadline());
            return creator.createChecked(target, request, withId(call, target.host(), request.name()));
        }
    }

    private static Call withId(Call call, HostSettings host, String name) {
        return new Call(call.entry(), call.operation(), new ProviderId(host.name(), name).toString(),
                call.deadline());
    }

    /** {@inheritDoc} Among the hosts that answer and are not cordoned, with room; see the class's placement rules. */
    @Override
    public List<ZoneChoice> place(List<Placement> placements, Deadline deadline) {
        Call call = new Call(entry(), Operation.PLACE, "", deadline);
        for (Placement asked : placements) {
            resolve(asked, Optional.empty(), call);
        }
        if (settings.hosts().size() == 1) {
            String only = settings.hosts().get(0).name();
            return placements.stream().map(asked -> new ZoneChoice(only, asked.zone().isEmpty()
                    ? "the only host of entry '" + entry() + "'" : "named")).toList();
        }
        return placement.place(placements, call);
    }

    /** {@inheritDoc} Recorded as a volume in the claims host's pool. */
    @Override
    public void cordon(String zone, boolean cordoned, Deadline deadline) {
        Call call = new Call(entry(), Operation.CORDON, "", deadline);
        HostSettings host = settings.host(zone).orElseThrow(() -> call.permanent("'" + zone + "' is not a host of"
                + " provider entry '" + entry() + "': use one of " + settings.hostNames()));
        cordons.set(host, cordoned, call);
    }

    /** {@inheritDoc} One call to the claims host. */
    @Override
    public Set<String> cordonedZones(Deadline deadline) {
        return new TreeSet<>(cordons.read(new Call(entry(), Operation.CORDON, "", deadline)).keySet());
    }

    /**
     * {@inheritDoc} The base volumes of this backend in the host's pool: {@code kvm} entries sharing a
     * pool share its bases, so each lists them all. Users are the domains whose disks back on a base
     * (through an overlay in the pool, or in their live backing chain), and volumes of the pool that
     * back on it without a domain.
     */
    @Override
    public List<BaseImage> images(String zone, Deadline deadline) {
        Call call = new Call(entry(), Operation.IMAGES, "", deadline);
        HostSettings host = zoneHost(zone, call);
        return hosts.call(host, call, libvirt -> bases.list(libvirt, host, call));
    }

    /** {@inheritDoc} Exactly a create's fetch of its base, with its lock, fetch lease and quota check. */
    @Override
    public PulledImage pullImage(String image, String zone, Deadline deadline) {
        Call call = new Call(entry(), Operation.PULL_IMAGE, "", deadline);
        HostSettings host = zoneHost(zone, call);
        InstanceCreator.Target<I> target = new InstanceCreator.Target<>(host, null,
                images.resolve(image, host, call));
        boolean fetched = creator.ensureBase(target, call);
        return new PulledImage(host.name(), images.baseVolume(target.image()), fetched);
    }

    /** {@inheritDoc} Under each base's fetch lease, after reading again what backs on it. */
    @Override
    public List<PrunedImage> pruneImages(String zone, Duration olderThan, boolean dryRun, Deadline deadline) {
        Call call = new Call(entry(), Operation.PRUNE_IMAGES, "", deadline);
        HostSettings host = zoneHost(zone, call);
        if (olderThan.isNegative()) {
            throw call.permanent("olderThan is " + olderThan + "; give zero or a positive duration");
        }
        return bases.prune(hosts, host, olderThan, dryRun, call);
    }

    /** The host of a zone; the only host for {@code ""} when there is one. */
    private HostSettings zoneHost(String zone, Call call) {
        if (zone.isEmpty() && settings.hosts().size() == 1) {
            return settings.hosts().get(0);
        }
        return settings.host(zone).orElseThrow(() -> call.permanent("zone '" + zone + "' is not a host of"
                + " provider entry '" + entry() + "': use one of " + settings.hostNames()));
    }

    /** {@inheritDoc} A domain of another entry or of no entry is PERMANENT; one not of this platform has no UID. */
    @Override
    public Instance get(String id, Deadline deadline) {
        ProviderId parsed = ProviderId.parse(id, Operation.GET, entry());
        HostSettings host = hostOf(parsed, Operation.GET);
        Call call = new Call(entry(), Operation.GET, id, deadline);
        return hosts.call(host, call, libvirt -> {
            Domain domain = LibvirtSteps.step("looking up domain " + parsed.name(),
                    () -> libvirt.lookupDomain(parsed.name()))
                    .orElseThrow(() -> call.failure(ErrorKind.NOT_FOUND, "no domain '" + parsed.name() + "' on host '"
                            + host.name() + "': it was deleted or never created", null));
            Optional<InstanceMetadata> metadata = InstanceInspector.readableMetadataOf(libvirt, host, domain, call);
            metadata.ifPresent(ours -> InstanceInspector.requireThisEntry(ours, host, parsed.name(), call));
            call.checkDeadline();
            return InstanceInspector.describe(libvirt, host.name(), domain, metadata);
        });
    }

    /**
     * {@inheritDoc} Overlay and seed go by name even without a domain (a create crashed before
     * defining it). A domain this entry did not create is PERMANENT and left alone with its volumes.
     */
    @Override
    public void delete(String id, Deadline deadline) {
        ProviderId parsed = ProviderId.parse(id, Operation.DELETE, entry());
        HostSettings host = hostOf(parsed, Operation.DELETE);
        Call call = new Call(entry(), Operation.DELETE, id, deadline);
        instanceLocks.withLock(parsed.name(), call, "another create or delete of " + parsed.name(),
                () -> claims.underClaim(parsed.name(), call, "creating or deleting " + parsed.name(),
                        claimed -> hosts.call(host, claimed, libvirt -> {
                            removeDomain(libvirt, host, parsed.name(), claimed);
                            claimed.checkDeadline();
                            removeVolumes(libvirt, host, parsed.name());
                            return null;
                        })));
    }

    /** {@inheritDoc} An unlistable host fails the call; an unreadable domain is left out (never collected). */
    @Override
    public List<Instance> listManaged(Deadline deadline) {
        Call call = new Call(entry(), Operation.LIST_MANAGED, "", deadline);
        List<Instance> managed = new ArrayList<>();
        for (HostSettings host : settings.hosts()) {
            managed.addAll(hosts.call(host, call, libvirt -> InstanceInspector.listHost(libvirt, host, call)));
        }
        managed.sort(Comparator.comparing(Instance::id));
        return List.copyOf(managed);
    }

    /** {@inheritDoc} One zone per host, named as the host. */
    @Override
    public List<String> zones() {
        return settings.hostNames();
    }

    /** {@inheritDoc} Reads that host alone. */
    @Override
    public List<Instance> listManaged(String zone, Deadline deadline) {
        Call call = new Call(entry(), Operation.LIST_MANAGED, "", deadline);
        HostSettings host = settings.host(zone).orElseThrow(() -> call.permanent("zone '" + zone
                + "' is not a host of provider entry '" + entry() + "': use one of " + settings.hostNames()));
        List<Instance> managed = new ArrayList<>(hosts.call(host, call,
                libvirt -> InstanceInspector.listHost(libvirt, host, call)));
        managed.sort(Comparator.comparing(Instance::id));
        return List.copyOf(managed);
    }

    /**
     * How {@code egressctl conformance} checks this entry: a placement per host with the first type
     * and image; RUNNING is not expected, since whether an image boots is the image's business.
     */
    public ConformanceProfile conformanceProfile(Supplier<ConformanceHarness.Entry> anotherEntry) {
        Set<Capability> capabilities = EnumSet.of(Capability.PLANTS_UNMANAGED_INSTANCES, Capability.STOPS_INSTANCES,
                Capability.MANAGES_IMAGES);
        if (settings.hosts().size() > 1) {
            capabilities.add(Capability.MULTIPLE_ZONES);
            capabilities.add(Capability.PLACES_INSTANCES);
        }
        if (anotherEntry != null) {
            capabilities.add(Capability.BUILDS_ANOTHER_ENTRY);
        }
        String machineType = settings.machineTypes().keySet().iterator().next();
        String image = images.imageNames().get(0);
        List<Placement> placements = settings.hosts().stream()
                .map(host -> new Placement(host.name(), machineType, image)).toList();
        return new ConformanceProfile(capabilities, placements, "not-a-" + settings.entry() + "-id",
                settings.hosts().get(0).name() + "/conformance-never-created", CONFORMANCE_STATE_WATCH,
                new LibvirtConformanceHarness(anotherEntry));
    }

    /** {@inheritDoc} Host checks, machine types, the backend's image checks, then leftovers in the pools (warnings). */
    @Override
    public List<PreflightCheck> preflight(Deadline deadline) {
        Call call = new Call(entry(), Operation.PREFLIGHT, "", deadline);
        List<PreflightCheck> checks = new ArrayList<>(HostPreflight.run(settings, hosts, call));
        checks.addAll(images.preflight(call));
        checks.addAll(leftovers.preflight(settings.hosts(), hosts, call));
        checks.addAll(claims.preflight(cordons, call));
        return List.copyOf(checks);
    }

    @Override
    public void close() {
        hosts.close();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[entry=" + entry() + "]";
    }

    /**
     * Checks the request and resolves it on {@code chosen}, else on its zone's host; a request without
     * zone is checked against the first host (the chosen one is resolved before the create).
     */
    private InstanceCreator.Target<I> resolve(CreateRequest request, Optional<HostSettings> chosen,
                                              Deadline deadline) {
        request.validate(entry());
        return resolve(request.placement(), chosen, new Call(entry(), Operation.CREATE, request.name(), deadline));
    }

    private InstanceCreator.Target<I> resolve(Placement placement, Optional<HostSettings> chosen, Call call) {
        HostSettings host = chosen.orElseGet(() -> hostForZone(placement.zone(), call));
        String typeName = placement.machineType();
        MachineSize machineType = settings.machineTypes().get(typeName);
        if (machineType == null) {
            throw call.permanent("placement.machineType '" + typeName + "' is not configured: use one of "
                    + settings.machineTypes().keySet() + ", or add it to machineTypes of provider entry '" + entry()
                    + "'");
        }
        return new InstanceCreator.Target<>(host, machineType, images.resolve(placement.image(), host, call));
    }

    private HostSettings hostForZone(String zone, Call call) {
        if (zone.isEmpty()) {
            return settings.hosts().get(0);
        }
        return settings.host(zone).orElseThrow(() -> call.permanent("placement.zone '" + zone
                + "' is not a host of provider entry '" + entry() + "': use one of " + settings.hostNames()
                + ", or add the host to hosts"));
    }

    private HostSettings hostOf(ProviderId id, Operation operation) {
        return settings.host(id.host()).orElseThrow(() -> new ProviderException(ErrorKind.PERMANENT, operation,
                entry(), id.toString(), "host '" + id.host() + "' of this provider ID is not configured in provider"
                + " entry '" + entry() + "' (hosts: " + settings.hostNames() + "): if the host was removed from the"
                + " configuration, add it back to reach its instances"));
    }

    private static void removeDomain(LibvirtHost libvirt, HostSettings host, String name, Call call) {
        Optional<Domain> found = LibvirtSteps.step("looking up domain " + name, () -> libvirt.lookupDomain(name));
        if (found.isEmpty()) {
            return;
        }
        Domain domain = found.get();
        InstanceMetadata metadata = InstanceInspector.readableMetadataOf(libvirt, host, domain, call)
                .orElseThrow(() -> call.permanent("domain '" + name + "' on host '" + host.name() + "' was not created"
                        + " by egress-proxies, so it is not deleted: remove it with virsh if it should go"));
        InstanceInspector.requireThisEntry(metadata, host, name, call);
        try {
            LibvirtSteps.run("destroying domain " + name, () -> libvirt.destroyDomain(domain));
        } catch (LibvirtException notRunning) {
            if (notRunning.is(LibvirtErrorCode.NO_DOMAIN)) {
                return;
            }
            // libvirt's answer to destroying a domain that does not run.
            if (!notRunning.is(LibvirtErrorCode.OPERATION_INVALID)) {
                throw notRunning;
            }
        }
        undefine(libvirt, domain, "undefining domain " + name);
    }

    /** Undefines the domain in the step named {@code step}; one that is gone meanwhile counts as undefined. */
    private static void undefine(LibvirtHost libvirt, Domain domain, String step) {
        try {
            LibvirtSteps.run(step, () -> libvirt.undefineDomain(domain));
        } catch (LibvirtException gone) {
            if (!gone.is(LibvirtErrorCode.NO_DOMAIN)) {
                throw gone;
            }
        }
    }

    private void removeVolumes(LibvirtHost libvirt, HostSettings host, String name) {
        Optional<StoragePool> pool = Pools.find(libvirt, host);
        if (pool.isEmpty()) {
            // Refusing to finish over a pool that is gone would keep the owner from ever letting go.
            LOG.info("storage pool {} does not exist on host {}, so no volumes of {} are left to delete",
                    host.pool(), host.name(), name);
            return;
        }
        InstanceCreator.deleteInstanceVolumes(libvirt, pool.get(), entry(), name);
        try {
            leftovers.warnAboutLeases(libvirt, pool.get(), host);
        } catch (LibvirtException unlisted) {
            if (unlisted.isTransportFailure()) {
                throw unlisted;
            }
            // The instance is gone; the leases are only reported, and check reports them too.
            LOG.debug("could not look for fetch leases left in storage pool {} on host {}: {}", host.pool(),
                    host.name(), unlisted.toString());
        }
    }

    /** Conformance hooks on the entry's hosts: plant a domain without metadata (undone by restore), crash one. */
    private final class LibvirtConformanceHarness implements ConformanceHarness {
        /** {@code null} when the backend builds no second entry. */
        private final Supplier<Entry> anotherEntry;
        private final List<ProviderId> planted = new ArrayList<>();

        LibvirtConformanceHarness(Supplier<Entry> anotherEntry) {
            this.anotherEntry = anotherEntry;
        }

        @Override
        public Entry anotherEntry() {
            return anotherEntry == null ? ConformanceHarness.super.anotherEntry() : anotherEntry.get();
        }

        @Override
        public String plantUnmanaged(Placement placement, String name) {
            HostSettings host = placement.zone().isEmpty() ? settings.hosts().get(0)
                    : settings.host(placement.zone()).orElseThrow(() -> new IllegalArgumentException("zone '"
                            + placement.zone() + "' names no host"));
            ProviderId id = new ProviderId(host.name(), name);
            hosts.call(host, call(Operation.CREATE, id), libvirt -> LibvirtSteps.step("defining unmanaged domain "
                    + name, () -> libvirt.defineDomain(DomainXml.unmanaged(name, host.platform(), host.bridge()))));
            planted.add(id);
            return id.toString();
        }

        @Override
        public void stop(String id) {
            ProviderId parsed = ProviderId.parse(id, Operation.GET, entry());
            hosts.call(host(parsed), call(Operation.GET, parsed), libvirt -> {
                libvirt.lookupDomain(parsed.name()).ifPresent(domain -> LibvirtSteps.run("destroying domain "
                        + parsed.name(), () -> libvirt.destroyDomain(domain)));
                return null;
            });
        }

        @Override
        public void restore() {
            for (ProviderId id : List.copyOf(planted)) {
                hosts.call(host(id), call(Operation.DELETE, id), libvirt -> {
                    libvirt.lookupDomain(id.name())
                            .ifPresent(domain -> undefine(libvirt, domain, "undefining unmanaged domain " + id.name()));
                    return null;
                });
                planted.remove(id);
            }
        }

        private HostSettings host(ProviderId id) {
            return settings.host(id.host()).orElseThrow(() -> new IllegalArgumentException("host '" + id.host()
                    + "' is not configured"));
        }

        private Call call(Operation operation, ProviderId id) {
            return new Call(entry(), operation, id.toString(), Deadline.after(CONFORMANCE_HOOK_TIMEOUT));
        }
    }
}

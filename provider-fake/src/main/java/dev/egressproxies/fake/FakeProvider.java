package dev.egressproxies.fake;

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
import dev.egressproxies.fake.state.InstanceStore;
import dev.egressproxies.fake.state.OperationLog;
import dev.egressproxies.fake.state.StoreCall;
import dev.egressproxies.fake.state.StoredInstance;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The fake backend: a {@link Provider} whose instances exist only in memory or in a state file,
 * honouring the whole contract, with hooks for tests.
 *
 * <p>Instances get IDs of the form {@code zone/name}, boot for the configured boot delay
 * (PROVISIONING, no IP) and then run with an address from 198.51.100.0/24. Besides the contract,
 * tests can {@linkplain #addUnmanaged add instances this platform did not create},
 * {@linkplain #stop stop} instances and {@linkplain #faults inject faults}. Safe for concurrent
 * use; a file-backed provider is also safe to share its file with other processes and other
 * entries, each of which acts only on the instances created through it ({@link EntryScope}). An
 * entry configured with {@code operationLog} records each create and delete in its state file, as
 * {@link FakeConfig} describes.
 */
public final class FakeProvider implements Provider {
    /** How long the test hooks wait for the state file's lock. */
    private static final Duration HOOK_TIMEOUT = Duration.ofSeconds(30);

    private final String entry;
    private final Clock clock;
    private final PlacementResolver placements;
    private final Lifecycle lifecycle;
    private final InstanceStore store;
    private final OperationLog log;
    private final FaultInjector faults;
    private final EntryScope scope;
    private final FakeBaseImages bases = new FakeBaseImages();

    FakeProvider(String entry, FakeConfig config, Clock clock, InstanceStore store, OperationLog log,
                 FaultInjector faults) {
        this.entry = entry;
        this.clock = clock;
        this.placements = new PlacementResolver(entry, config);
        this.lifecycle = new Lifecycle(clock, config.bootDelay());
        this.store = store;
        this.log = log;
        this.faults = faults;
        this.scope = new EntryScope(entry, store.location());
    }

    /**
     * {@inheritDoc}
     *
     * <p>Errors about the request or its placement carry the request's name as instance ID (the
     * ID is not known yet), later ones the provider ID. An instance of that name that this platform did not
     * create is PERMANENT: it is never adopted; so is one created through another entry, or through
     * no recorded entry ({@link EntryScope}). The name is looked up in every zone at once, as all
     * zones are kept in one store; only the entry's own instances hold a name across zones. The
     * instance records the zone it went to (the only zone, when the request named none), the machine
     * type and image as requested, and the user-data's sha256.
     */
    @Override
    public String create(CreateRequest request, Deadline deadline) {
        // Validation is pure computation, so it goes first and every later error can carry the ID.
        String zone = zoneOf(request);
        String known = zone.isEmpty() ? request.name() : ProviderIds.format(zone, request.name());
        deadline.check(Operation.CREATE, entry, known);
        StoreCall call = new StoreCall(Operation.CREATE, known, deadline);
        return log.record(call, () -> performCreate(request, zone, call));
    }

    /** Injects the faults of a create whose request was found valid, then creates or starts the instance. */
    private String performCreate(CreateRequest request, String zone, StoreCall call) {
        String known = call.instanceId();
        faults.next(Operation.CREATE).perform(Operation.CREATE, entry, known, call.deadline());
        List<String> unreadable = faults.unreadableZones();
        if (!unreadable.isEmpty()) {
            throw zoneUnreadable(unreadable.get(0), Operation.CREATE, known, "so no instance called '"
                    + request.name() + "' can be proven absent from it; nothing was created");
        }
        return store.update(call, instances -> {
            String id = ProviderIds.format(zone.isEmpty() ? placed(request.name(), instances) : zone, request.name());
            StoredInstance existing = instances.get(id);
            if (existing == null) {
                requireNameFree(request.name(), id, instances);
                instances.put(id, newInstance(id, request, instances));
                bases.add(ProviderIds.zoneOf(id), request.placement().image(), clock.instant());
                return id;
            }
            if (!existing.managed()) {
                throw new ProviderException(ErrorKind.PERMANENT, Operation.CREATE, entry, id, "an instance named '"
                        + request.name() + "' already exists in zone '" + ProviderIds.zoneOf(id) + "' but was not"
                        + " created by this platform: delete it yourself or choose another name");
            }
            scope.requireThisEntry(existing, Operation.CREATE);
            if (existing.stopped()) {
                instances.put(id, existing.start(clock.instant()));
            }
            return id;
        });
    }

    /**
     * {@inheritDoc}
     *
     * <p>The zone with the fewest of this entry's instances, then the first configured; the fake
     * has no capacity to run out of.
     */
    @Override
    public List<ZoneChoice> place(List<Placement> asked, Deadline deadline) {
        deadline.check(Operation.PLACE, entry, "");
        for (Placement placement : asked) {
            placements.zoneFor(new CreateRequest("placement", "placement", placement, ""));
        }
        Map<String, Integer> counts = counts(store.read(new StoreCall(Operation.PLACE, "", deadline)));
        List<ZoneChoice> choices = new ArrayList<>();
        for (Placement placement : asked) {
            String zone = placement.zone().isEmpty() ? fewest(counts) : placement.zone();
            choices.add(new ZoneChoice(zone, placement.zone().isEmpty() ? "fewest instances of entry '" + entry
                    + "' " + counts : "named"));
            counts.merge(zone, 1, Integer::sum);
        }
        return List.copyOf(choices);
    }

    /** The zone of this entry's instance of {@code name}, else the one {@link #place} would choose. */
    private String placed(String name, Map<String, StoredInstance> instances) {
        for (StoredInstance other : instances.values()) {
            if (other.name().equals(name) && scope.lists(other)) {
                return other.zone();
            }
        }
        return fewest(counts(instances));
    }

    private Map<String, Integer> counts(Map<String, StoredInstance> instances) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        placements.zones().forEach(zone -> counts.put(zone, 0));
        instances.values().stream().filter(scope::lists).forEach(instance -> counts.computeIfPresent(instance.zone(),
                (zone, count) -> count + 1));
        return counts;
    }

    private static String fewest(Map<String, Integer> counts) {
        return counts.entrySet().stream().min(Map.Entry.comparingByValue()).orElseThrow().getKey();
    }

    /**
     * {@inheritDoc}
     *
     * <p>Checks the request's fields and its placement against the entry's zones, machine types
     * and images, exactly as {@link #create} does first.
     */
    @Override
    public void validate(CreateRequest request) {
        zoneOf(request);
    }

    /**
     * {@inheritDoc}
     *
     * <p>An instance this platform did not create is reported, without UID and creation time; one
     * created through another entry, or through no recorded entry, is PERMANENT ({@link EntryScope}).
     */
    @Override
    public Instance get(String id, Deadline deadline) {
        deadline.check(Operation.GET, entry, id);
        ProviderIds.requireWellFormed(id, Operation.GET, entry);
        faults.next(Operation.GET).perform(Operation.GET, entry, id, deadline);
        requireReadable(id, Operation.GET);
        StoredInstance stored = store.read(new StoreCall(Operation.GET, id, deadline)).get(id);
        if (stored == null) {
            requireConfiguredZone(id, Operation.GET);
            throw new ProviderException(ErrorKind.NOT_FOUND, Operation.GET, entry, id,
                    "no instance with this ID exists: it was deleted or never created");
        }
        if (stored.managed()) {
            scope.requireThisEntry(stored, Operation.GET);
        }
        return lifecycle.describe(stored);
    }

    /**
     * {@inheritDoc}
     *
     * <p>An ID whose zone is not one of the entry's is PERMANENT unless an instance of the entry is
     * still recorded there (its zone was removed from the configuration since), which is deleted.
     */
    @Override
    public void delete(String id, Deadline deadline) {
        deadline.check(Operation.DELETE, entry, id);
        ProviderIds.requireWellFormed(id, Operation.DELETE, entry);
        StoreCall call = new StoreCall(Operation.DELETE, id, deadline);
        log.record(call, () -> performDelete(call));
    }

    /**
     * Injects the faults of a delete of a well-formed ID, then deletes the instance if it exists;
     * returns it, {@code null} when there was none.
     */
    private StoredInstance performDelete(StoreCall call) {
        String id = call.instanceId();
        faults.next(Operation.DELETE).perform(Operation.DELETE, entry, id, call.deadline());
        requireReadable(id, Operation.DELETE);
        return store.update(call, instances -> {
            StoredInstance existing = instances.get(id);
            if (existing == null) {
                requireConfiguredZone(id, Operation.DELETE);
            }
            if (existing != null && !existing.managed()) {
                // Someone else's instance is never deleted through an ID that merely names it.
                throw new ProviderException(ErrorKind.PERMANENT, Operation.DELETE, entry, id,
                        "this instance was not created by egress-proxies, so it is not deleted");
            }
            if (existing != null) {
                scope.requireThisEntry(existing, Operation.DELETE);
            }
            return instances.remove(id);
        });
    }

    @Override
    public List<Instance> listManaged(Deadline deadline) {
        return list(null, deadline);
    }

    /** {@inheritDoc} The configured zones. */
    @Override
    public List<String> zones() {
        return placements.zones();
    }

    /** {@inheritDoc} Only that zone's unreadable fault fails it. */
    @Override
    public List<Instance> listManaged(String zone, Deadline deadline) {
        if (!placements.isConfiguredZone(zone)) {
            throw new ProviderException(ErrorKind.PERMANENT, Operation.LIST_MANAGED, entry, "", "zone '" + zone
                    + "' is not one of this entry's zones " + placements.zones());
        }
        return list(zone, deadline);
    }

    /** The entry's instances in {@code zone}, or in every zone when it is null. */
    private List<Instance> list(String zone, Deadline deadline) {
        deadline.check(Operation.LIST_MANAGED, entry, "");
        faults.next(Operation.LIST_MANAGED).perform(Operation.LIST_MANAGED, entry, "", deadline);
        List<String> unreadable = faults.unreadableZones().stream()
                .filter(candidate -> zone == null || candidate.equals(zone)).toList();
        if (!unreadable.isEmpty()) {
            throw zoneUnreadable(unreadable.get(0), Operation.LIST_MANAGED, "", zone == null
                    ? "so the instances cannot be listed whole" : "so its instances cannot be listed");
        }
        return store.read(new StoreCall(Operation.LIST_MANAGED, "", deadline)).values().stream()
                .filter(scope::lists)
                .filter(stored -> zone == null || ProviderIds.zoneOf(stored.id()).equals(zone))
                .map(lifecycle::describe)
                .sorted(Comparator.comparing(Instance::id))
                .collect(Collectors.toUnmodifiableList());
    }

    /**
     * {@inheritDoc}
     *
     * <p>One base per image and zone, kept in memory ({@link FakeBaseImages}); an instance's image is
     * its base. A zone made unreadable fails it.
     */
    @Override
    public List<BaseImage> images(String zone, Deadline deadline) {
        requireImagesZone(zone, Operation.IMAGES, deadline);
        return bases.list(zone, uses(Operation.IMAGES, deadline));
    }

    /** {@inheritDoc} The base appears at once, of a configured image only. */
    @Override
    public PulledImage pullImage(String image, String zone, Deadline deadline) {
        requireImagesZone(zone, Operation.PULL_IMAGE, deadline);
        placements.zoneFor(new CreateRequest("pull", "pull", new Placement(zone, placements.anyMachineType(), image),
                ""));
        return new PulledImage(zone, FakeBaseImages.nameOf(image), bases.add(zone, image, clock.instant()));
    }

    /** {@inheritDoc} */
    @Override
    public List<PrunedImage> pruneImages(String zone, Duration olderThan, boolean dryRun, Deadline deadline) {
        requireImagesZone(zone, Operation.PRUNE_IMAGES, deadline);
        if (olderThan.isNegative()) {
            throw new ProviderException(ErrorKind.PERMANENT, Operation.PRUNE_IMAGES, entry, "", "olderThan is "
                    + olderThan + "; give zero or a positive duration");
        }
        return bases.prune(zone, uses(Operation.PRUNE_IMAGES, deadline),
                olderThan.isZero() ? null : clock.instant().minus(olderThan), dryRun);
    }

    private void requireImagesZone(String zone, Operation operation, Deadline deadline) {
        deadline.check(operation, entry, "");
        if (!placements.isConfiguredZone(zone)) {
            throw new ProviderException(ErrorKind.PERMANENT, operation, entry, "", "zone '" + zone
                    + "' is not one of this entry's zones " + placements.zones());
        }
        if (faults.unreadableZones().contains(zone)) {
            throw zoneUnreadable(zone, operation, "", "so its base images cannot be read");
        }
    }

    /** Every instance of the store (of any entry: they share the zones' bases) as a base's user. */
    private List<FakeBaseImages.Use> uses(Operation operation, Deadline deadline) {
        return store.read(new StoreCall(operation, "", deadline)).values().stream()
                .map(stored -> new FakeBaseImages.Use(stored.name(), stored.zone(), stored.image(),
                        stored.createdAt() == null ? stored.startedAt() : stored.createdAt()))
                .toList();
    }

    /** Checks that the instances can be read: always true in memory, a readable file otherwise. */
    @Override
    public List<PreflightCheck> preflight(Deadline deadline) {
        String check = "fake state in " + store.location();
        try {
            Collection<StoredInstance> instances = store.read(new StoreCall(Operation.PREFLIGHT, "", deadline)).values();
            long own = instances.stream().filter(scope::lists).count();
            long ofNoEntry = instances.stream().filter(StoredInstance::ofNoEntry).count();
            return List.of(PreflightCheck.passed(check, instances.size() + " instances recorded, " + own
                    + " through this entry" + (ofNoEntry == 0 ? "" : ", " + ofNoEntry + " recorded before entries were"
                    + " kept, which no entry manages: while no egressctl uses the file, remove those records (their"
                    + " \"entry\" is empty) or set their \"entry\" to the entry that should manage them")));
        } catch (ProviderException failure) {
            if (failure.kind() != ErrorKind.PERMANENT) {
                throw failure;
            }
            return List.of(PreflightCheck.failed(check, failure.detail()));
        }
    }

    /**
     * Adds an instance that this platform did not create, as someone working on the backend by
     * hand would: listManaged leaves it out, get reports it with an empty UID and no creation
     * time. It boots like any other instance.
     *
     * @param zone a configured zone
     * @param name a DNS label no instance in that zone has
     * @return its provider ID
     * @throws IllegalArgumentException when the zone is not configured, the name is invalid or taken
     * @throws IllegalStateException    when every address is taken
     */
    public String addUnmanaged(String zone, String name) {
        if (!placements.isConfiguredZone(zone)) {
            throw new IllegalArgumentException("zone '" + zone + "' is not configured: use one of " + placements.zones());
        }
        if (!ProviderIds.isInstanceName(name)) {
            throw new IllegalArgumentException("name '" + name + "' is not a DNS label: use 1 to 63 of a-z, 0-9 and '-'");
        }
        String id = ProviderIds.format(zone, name);
        return store.update(hookCall(id), instances -> {
            if (instances.containsKey(id)) {
                throw new IllegalArgumentException("instance '" + id + "' already exists: choose another name");
            }
            String ip = AddressPool.lowestFree(addressesOf(instances)).orElseThrow(() ->
                    new IllegalStateException("every address of " + AddressPool.NETWORK + " is taken: delete instances first"));
            instances.put(id, new StoredInstance(id, name, false, "", "", null, clock.instant(), false, ip, "", "",
                    ""));
            return id;
        });
    }

    /**
     * Removes an instance that {@link #addUnmanaged} added; does nothing when it is gone already.
     *
     * @throws IllegalArgumentException when the instance is one this platform created
     */
    public void removeUnmanaged(String id) {
        store.update(hookCall(id), instances -> {
            StoredInstance stored = instances.get(id);
            if (stored != null && stored.managed()) {
                throw new IllegalArgumentException("instance '" + id + "' was created by egress-proxies: delete it");
            }
            return instances.remove(id);
        });
    }

    /**
     * Stops the instance, as a crash or an operator would; get then reports it STOPPED, and only a
     * create starts it again.
     *
     * @throws IllegalArgumentException when no instance has this ID
     */
    public void stop(String id) {
        store.update(hookCall(id), instances -> {
            StoredInstance stored = instances.get(id);
            if (stored == null) {
                throw new IllegalArgumentException("no instance '" + id + "' exists: pass an ID that create or"
                        + " addUnmanaged returned");
            }
            instances.put(id, stored.stop());
            return null;
        });
    }

    /** The faults this provider injects; changes apply to calls that start afterwards. */
    public FaultInjector faults() {
        return faults;
    }

    @Override
    public String toString() {
        return "FakeProvider[entry=" + entry + ", state=" + store.location() + "]";
    }

    private StoredInstance newInstance(String id, CreateRequest request, Map<String, StoredInstance> instances) {
        String ip = AddressPool.lowestFree(addressesOf(instances)).orElseThrow(() ->
                new ProviderException(ErrorKind.QUOTA_EXCEEDED, Operation.CREATE, entry, id, "all "
                        + AddressPool.SIZE + " addresses of " + AddressPool.NETWORK + " are held by existing"
                        + " instances: delete instances that are no longer needed, then retry"));
        Instant now = clock.instant();
        return new StoredInstance(id, request.name(), true, entry, request.uid(), now, now, false, ip,
                request.placement().machineType(), request.placement().image(), request.cloudInitSha256());
    }

    /** Validates the request and returns the zone its instance goes to. */
    private String zoneOf(CreateRequest request) {
        request.validate(entry);
        return placements.zoneFor(request);
    }

    /**
     * Fails a create whose name this entry already holds in another zone: one name is one instance
     * per entry, so a second one would make the name ambiguous to everyone who looks it up.
     */
    private void requireNameFree(String name, String id, Map<String, StoredInstance> instances) {
        for (StoredInstance other : instances.values()) {
            if (other.name().equals(name) && scope.lists(other)) {
                throw new ProviderException(ErrorKind.PERMANENT, Operation.CREATE, entry, id, "instance '"
                        + other.id() + "' of this entry already has the name '" + name + "' (in zone '"
                        + other.zone() + "'), and a name is one instance per entry across its zones: use '"
                        + other.id() + "', delete it first to move it to another zone (egressctl apply replaces it"
                        + " that way), or choose another name; nothing was created");
            }
        }
    }

    /** Fails a call about {@code id} when its zone was made unreadable. */
    private void requireReadable(String id, Operation operation) {
        String zone = ProviderIds.zoneOf(id);
        if (faults.unreadableZones().contains(zone)) {
            throw zoneUnreadable(zone, operation, id, "so the instance cannot be read");
        }
    }

    private ProviderException zoneUnreadable(String zone, Operation operation, String id, String consequence) {
        return new ProviderException(ErrorKind.TRANSIENT, operation, entry, id, "zone '" + zone + "' cannot be"
                + " read (injected fault: FaultInjector.makeZoneUnreadable), " + consequence + "; retry once the"
                + " zone answers again");
    }

    /**
     * Fails a call about {@code id}, of which nothing is recorded, when its zone is not one of the
     * entry's: the ID has a typo or belongs to another entry, and "not found" or "deleted" would hide that.
     */
    private void requireConfiguredZone(String id, Operation operation) {
        String zone = ProviderIds.zoneOf(id);
        if (!placements.isConfiguredZone(zone)) {
            throw new ProviderException(ErrorKind.PERMANENT, operation, entry, id, "zone '" + zone + "' is not a"
                    + " zone of provider entry '" + entry + "' (its zones are " + placements.zones() + "): check the"
                    + " ID, or the entry it was meant for");
        }
    }

    private static Set<String> addressesOf(Map<String, StoredInstance> instances) {
        return instances.values().stream().map(StoredInstance::ip).collect(Collectors.toSet());
    }

    private static StoreCall hookCall(String id) {
        // Test hooks are not contract calls: their errors (a corrupt state file) name create, the
        // nearest operation, and the deadline only bounds waiting for another process's lock.
        return new StoreCall(Operation.CREATE, id, Deadline.after(HOOK_TIMEOUT));
    }
}

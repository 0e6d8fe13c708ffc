package dev.egressproxies.example;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.ProviderException;
import java.time.Clock;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

/**
 * The example backend: instances kept in memory under opaque IDs ({@code i-} and 16 hex digits),
 * in one zone, booting to RUNNING with an address from 192.0.2.0/24 after the configured delay.
 *
 * <p>It never blocks, so honouring deadlines and interruption comes down to checking them on
 * entry. One lock guards all state, which makes create idempotent under concurrency. Two methods
 * beyond the contract let tests plant an unmanaged instance and stop an instance.
 */
public final class ExampleProvider implements Provider {
    private static final Pattern ID = Pattern.compile("i-[0-9a-f]{16}");

    private final String entry;
    private final ExampleConfig config;
    private final Clock clock;
    /** Guarded by {@code this}. */
    private final Map<String, ExampleInstance> instancesById = new HashMap<>();
    /** Guarded by {@code this}; the only zone makes the name alone a key. */
    private final Map<String, String> idsByName = new HashMap<>();
    /** Guarded by {@code this}. */
    private int addressesHandedOut;

    ExampleProvider(String entry, ExampleConfig config, Clock clock) {
        this.entry = entry;
        this.config = config;
        this.clock = clock;
    }

    @Override
    public synchronized String create(CreateRequest request, Deadline deadline) {
        deadline.check(Operation.CREATE, entry, request.name());
        validate(request);
        String existingId = idsByName.get(request.name());
        if (existingId == null) {
            Placement placement = request.placement();
            Placement resolved = new Placement(config.zone(), placement.machineType(), placement.image());
            return newInstance(request.name(), request.uid(), resolved, request.cloudInitSha256()).id();
        }
        ExampleInstance existing = instancesById.get(existingId);
        if (!existing.managed()) {
            throw new ProviderException(ErrorKind.PERMANENT, Operation.CREATE, entry, request.name(),
                    "an instance called '" + request.name() + "' exists but was not created by this platform;"
                            + " choose another name or remove it by hand");
        }
        instancesById.put(existingId, existing.startedAt(clock.instant()));
        return existingId;
    }

    /** {@inheritDoc} Checks the request and its placement against the one zone, machine types and images. */
    @Override
    public void validate(CreateRequest request) {
        request.validate(entry);
        checkPlacement(request.placement(), request.name());
    }

    @Override
    public synchronized Instance get(String id, Deadline deadline) {
        deadline.check(Operation.GET, entry, id);
        requireWellFormed(id, Operation.GET);
        return Optional.ofNullable(instancesById.get(id))
                .map(instance -> instance.describe(clock.instant(), config.bootDelay()))
                .orElseThrow(() -> new ProviderException(ErrorKind.NOT_FOUND, Operation.GET, entry, id,
                        "no such instance; it was deleted or never created"));
    }

    @Override
    public synchronized void delete(String id, Deadline deadline) {
        deadline.check(Operation.DELETE, entry, id);
        requireWellFormed(id, Operation.DELETE);
        ExampleInstance existing = instancesById.get(id);
        if (existing == null) {
            return;
        }
        if (!existing.managed()) {
            throw new ProviderException(ErrorKind.PERMANENT, Operation.DELETE, entry, id,
                    "this instance was not created by this platform, so it is not deleted");
        }
        instancesById.remove(id);
        idsByName.remove(existing.name());
    }

    @Override
    public synchronized List<Instance> listManaged(Deadline deadline) {
        deadline.check(Operation.LIST_MANAGED, entry, "");
        return instancesById.values().stream()
                .filter(ExampleInstance::managed)
                .map(instance -> instance.describe(clock.instant(), config.bootDelay()))
                .toList();
    }

    /**
     * Adds an instance as someone other than this platform would: without UID or creation time,
     * so listManaged leaves it out.
     *
     * @return its provider ID
     * @throws IllegalArgumentException when the name is taken
     */
    public synchronized String plantUnmanaged(String name) {
        if (idsByName.containsKey(name)) {
            throw new IllegalArgumentException("an instance called '" + name + "' exists already");
        }
        return newInstance(name, "", new Placement(config.zone(), "", ""), "").id();
    }

    /**
     * Stops the instance, as a crash would; only a create starts it again.
     *
     * @throws IllegalArgumentException when no instance has this ID
     */
    public synchronized void stop(String id) {
        ExampleInstance instance = instancesById.get(id);
        if (instance == null) {
            throw new IllegalArgumentException("no instance has the ID '" + id + "'");
        }
        instancesById.put(id, instance.stopped());
    }

    /** Adds an instance; a managed one has a UID, an unmanaged one the empty UID. */
    private ExampleInstance newInstance(String name, String uid, Placement placement, String userDataSha256) {
        boolean managed = !uid.isEmpty();
        String id;
        do {
            id = "i-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
        } while (instancesById.containsKey(id));
        int host = addressesHandedOut++ % 254 + 1;
        ExampleInstance instance = new ExampleInstance(id, name, uid, managed ? clock.instant() : null, managed,
                clock.instant(), "192.0.2." + host, placement, userDataSha256);
        instancesById.put(id, instance);
        idsByName.put(name, id);
        return instance;
    }

    private void checkPlacement(Placement placement, String name) {
        if (!placement.zone().isEmpty() && !placement.zone().equals(config.zone())) {
            throw placementError(name, "zone '" + placement.zone() + "' does not exist; use '" + config.zone()
                    + "' or leave the zone empty");
        }
        if (!config.machineTypes().contains(placement.machineType())) {
            throw placementError(name, "machine type '" + placement.machineType() + "' does not exist; use one of "
                    + config.machineTypes());
        }
        if (!config.images().contains(placement.image())) {
            throw placementError(name, "image '" + placement.image() + "' does not exist; use one of "
                    + config.images());
        }
    }

    private ProviderException placementError(String name, String detail) {
        return new ProviderException(ErrorKind.PERMANENT, Operation.CREATE, entry, name, detail);
    }

    private void requireWellFormed(String id, Operation operation) {
        if (id == null || !ID.matcher(id).matches()) {
            throw new ProviderException(ErrorKind.PERMANENT, operation, entry, id,
                    "'" + id + "' is not an example provider ID; pass the ID create returned, like i-0123456789abcdef");
        }
    }
}

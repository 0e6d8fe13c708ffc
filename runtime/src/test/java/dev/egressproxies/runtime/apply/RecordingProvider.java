package dev.egressproxies.runtime.apply;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.InstanceState;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.api.ZoneChoice;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * A provider for the apply tests that records the calls made to it, fails the calls it is told to,
 * and accepts only the zones it is given (as a backend's validate does).
 */
final class RecordingProvider implements Provider {
    private final String entry;
    private final Set<String> zones;
    private final List<String> calls = new ArrayList<>();
    private final Set<String> failing = new HashSet<>();
    private final Map<String, Instance> present = new HashMap<>();
    private Function<List<Placement>, List<ZoneChoice>> placing;

    RecordingProvider(String entry, String... zones) {
        this.entry = entry;
        this.zones = Set.of(zones);
    }

    /** Makes calls of this form ({@code create NAME} or {@code delete ID}) fail TRANSIENT. */
    RecordingProvider failing(String call) {
        failing.add(call);
        return this;
    }

    /** Makes {@link #get} find these instances; it finds no other. */
    RecordingProvider having(Instance... instances) {
        for (Instance instance : instances) {
            present.put(instance.id(), instance);
        }
        return this;
    }

    /** Answers {@link #place} with {@code placing}, recording {@code place N} for N placements. */
    RecordingProvider placing(Function<List<Placement>, List<ZoneChoice>> placing) {
        this.placing = placing;
        return this;
    }

    /** The calls made, in order: {@code create NAME@ZONE}, {@code get ID}, {@code delete ID}. */
    List<String> calls() {
        return calls;
    }

    @Override
    public void validate(CreateRequest request) {
        request.validate(entry);
        if (!zones.contains(request.placement().zone())) {
            throw new ProviderException(ErrorKind.PERMANENT, Operation.CREATE, entry, request.name(),
                    "placement.zone '" + request.placement().zone() + "' is not configured: use one of " + zones);
        }
    }

    @Override
    public String create(CreateRequest request, Deadline deadline) {
        validate(request);
        record("create " + request.name() + "@" + request.placement().zone());
        return request.placement().zone() + "/" + request.name();
    }

    @Override
    public List<ZoneChoice> place(List<Placement> placements, Deadline deadline) {
        if (placing == null) {
            return Provider.super.place(placements, deadline);
        }
        record("place " + placements.size());
        return placing.apply(placements);
    }

    @Override
    public Instance get(String id, Deadline deadline) {
        record("get " + id);
        Instance found = present.get(id);
        if (found == null) {
            throw new ProviderException(ErrorKind.NOT_FOUND, Operation.GET, entry, id, "not recorded");
        }
        return found;
    }

    @Override
    public void delete(String id, Deadline deadline) {
        record("delete " + id);
    }

    @Override
    public List<Instance> listManaged(Deadline deadline) {
        return List.of();
    }

    private void record(String call) {
        calls.add(call);
        if (failing.contains(call)) {
            throw new ProviderException(ErrorKind.TRANSIENT, Operation.CREATE, entry, "", "failed on purpose: " + call);
        }
    }

    /** An instance as a backend reports it. */
    static Instance instance(String zone, String name, InstanceState state, String machineType, String image,
                             String userDataSha256) {
        return new Instance(zone + "/" + name, name, state == InstanceState.RUNNING ? "198.51.100.1" : "", state,
                "uid-" + name, null, new Placement(zone, machineType, image), userDataSha256);
    }
}

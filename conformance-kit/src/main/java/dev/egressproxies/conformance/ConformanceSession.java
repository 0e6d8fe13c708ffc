package dev.egressproxies.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.api.conformance.Capability;
import dev.egressproxies.api.conformance.ConformanceHarness;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * One test's dealings with the target: it makes requests with the test's unique names, remembers
 * every instance the test created, and deletes them all when the test ends, whatever its outcome.
 */
final class ConformanceSession implements AutoCloseable {
    /** A small, valid cloud-init document; backends must accept it. */
    static final String CLOUD_INIT = "#cloud-config\nhostname: conformance\n";

    private final ConformanceTarget target;
    private final InstanceNames names;
    private final Set<String> createdIds = ConcurrentHashMap.newKeySet();

    ConformanceSession(ConformanceTarget target) {
        this.target = target;
        this.names = InstanceNames.unique(target.namePrefix());
    }

    ConformanceTarget target() {
        return target;
    }

    Provider provider() {
        return target.provider();
    }

    InstanceNames names() {
        return names;
    }

    /** A deadline for a call that is expected to succeed. */
    Deadline deadline() {
        return Deadline.after(target.callTimeout());
    }

    /** A valid request for {@code name} in the primary placement. */
    CreateRequest request(String name) {
        return request(name, target.primaryPlacement());
    }

    /** A valid request for {@code name} in {@code placement}. */
    CreateRequest request(String name, Placement placement) {
        return new CreateRequest(name, uidFor(name), placement, CLOUD_INIT);
    }

    /**
     * A valid request for {@code name} in {@code placement} with user-data of its own, so a backend
     * that mixed up two instances' user-data digests is caught.
     */
    CreateRequest requestWithOwnUserData(String name, Placement placement) {
        return new CreateRequest(name, uidFor(name), placement, CLOUD_INIT + "# for " + name + "\n");
    }

    /** The UID the suite gives the instance called {@code name}. */
    static String uidFor(String name) {
        return "uid-" + name;
    }

    /** Creates an instance and remembers it for cleanup. */
    String create(CreateRequest request) {
        String id = provider().create(request, deadline());
        createdIds.add(id);
        return id;
    }

    /** Creates an instance named for {@code purpose} in the primary placement. */
    String create(String purpose) {
        return create(request(names.name(purpose)));
    }

    Instance get(String id) {
        return provider().get(id, deadline());
    }

    List<Instance> listManaged() {
        return provider().listManaged(deadline());
    }

    /** The managed instances called {@code name}. */
    List<Instance> listedNamed(String name) {
        return listManaged().stream().filter(instance -> instance.name().equals(name)).toList();
    }

    /** The managed instance with this ID, if listed. */
    Optional<Instance> listed(String id) {
        return listManaged().stream().filter(instance -> instance.id().equals(id)).findFirst();
    }

    /** Asserts that no managed instance is called {@code name}: a rejected request created nothing. */
    void assertNothingCalled(String name) {
        assertThat(listedNamed(name))
                .as("managed instances called '%s' after a rejected create", name)
                .isEmpty();
    }

    /**
     * Creates one instance in each of the target's placements, with user-data of its own, and
     * returns the requests by the IDs create returned.
     */
    Map<String, CreateRequest> createOnePerPlacement(String purpose) {
        Map<String, CreateRequest> byId = new LinkedHashMap<>();
        int index = 0;
        for (Placement placement : target.placements()) {
            CreateRequest request = requestWithOwnUserData(names.name(purpose + index++), placement);
            byId.put(create(request), request);
        }
        return byId;
    }

    /**
     * Asserts that {@code instance} reports the placement and user-data digest of the request it
     * was created with.
     */
    static void assertCreatedAs(Instance instance, CreateRequest request, String source) {
        assertThat(instance.placement()).as("placement %s reports for %s", source, instance.id())
                .isEqualTo(request.placement());
        assertThat(instance.userDataSha256()).as("user-data sha256 %s reports for %s", source, instance.id())
                .isEqualTo(request.cloudInitSha256());
    }

    /**
     * Asserts that create rejects {@code request} as PERMANENT, carrying the entry and the name,
     * and creates nothing; and that {@link Provider#validate} rejects it first with the same kind
     * and detail, as validate must make exactly the checks create makes before any I/O.
     *
     * @return create's error
     */
    ProviderException assertRejected(CreateRequest request) {
        ProviderException fromValidate = ProviderErrors.thrownBy("validate of " + request.name()
                + " with an invalid request", () -> provider().validate(request));
        ProviderException error = ProviderErrors.thrownBy("create of " + request.name() + " with an invalid request",
                () -> create(request));
        ProviderErrors.assertCreateError(error, ErrorKind.PERMANENT, target.entryName(), request.name());
        ProviderErrors.assertSameRejection(fromValidate, error);
        assertNothingCalled(request.name());
        return error;
    }

    /**
     * Polls the instance until it meets the condition, and returns the observation that did.
     *
     * @throws AssertionError when the target's state timeout passes first
     */
    Instance awaitInstance(String id, Predicate<Instance> condition, String description) {
        long end = System.nanoTime() + target.stateTimeout().toNanos();
        Instance last = get(id);
        while (!condition.test(last)) {
            if (System.nanoTime() - end > 0) {
                fail("instance %s did not become %s within %s; last seen: %s",
                        id, description, target.stateTimeout(), last);
            }
            pause();
            last = get(id);
        }
        return last;
    }

    /** Polls the instance for {@code window}, checking every observation. */
    void observe(String id, Duration window, Consumer<Instance> check) {
        long end = System.nanoTime() + window.toNanos();
        do {
            check.accept(get(id));
            pause();
        } while (System.nanoTime() - end < 0);
    }

    /** Plants an unmanaged instance through the harness. */
    String plantUnmanaged(Placement placement, String name) {
        try {
            return target.harness().plantUnmanaged(placement, name);
        } catch (UnsupportedOperationException e) {
            throw missingHook(Capability.PLANTS_UNMANAGED_INSTANCES, "plantUnmanaged", e);
        }
    }

    /** Stops an instance through the harness. */
    void stop(String id) {
        try {
            target.harness().stop(id);
        } catch (UnsupportedOperationException e) {
            throw missingHook(Capability.STOPS_INSTANCES, "stop", e);
        }
    }

    /** Makes the backend hang on an operation through the harness. */
    void hang(Operation operation) {
        try {
            target.harness().hang(operation);
        } catch (UnsupportedOperationException e) {
            throw missingHook(Capability.HANGS_ON_DEMAND, "hang", e);
        }
    }

    /** Makes a zone unreadable through the harness. */
    void makeZoneUnreadable(String zone) {
        try {
            target.harness().makeZoneUnreadable(zone);
        } catch (UnsupportedOperationException e) {
            throw missingHook(Capability.MAKES_ZONES_UNREADABLE, "makeZoneUnreadable", e);
        }
    }

    /** Undoes the harness's hooks, so the backend answers again. */
    void restore() {
        target.harness().restore();
    }

    /**
     * Undoes the hooks, deletes every instance the test made (those it knows the ID of, and any
     * managed instance carrying the test's token, such as one a timed-out create left behind),
     * and closes the provider.
     *
     * @throws AssertionError when anything could not be cleaned up, naming what is left
     */
    @Override
    public void close() {
        // A test that failed midway may have left the interrupt flag set; cleanup must still run.
        Thread.interrupted();
        List<Throwable> failures = new ArrayList<>();
        try {
            restore();
        } catch (RuntimeException e) {
            failures.add(e);
        }
        Set<String> leftovers = new LinkedHashSet<>(createdIds);
        try {
            listManaged().stream()
                    .filter(instance -> names.isOurs(instance.name()))
                    .forEach(instance -> leftovers.add(instance.id()));
        } catch (ProviderException e) {
            failures.add(e);
        }
        for (String id : leftovers) {
            try {
                provider().delete(id, deadline());
            } catch (ProviderException e) {
                failures.add(e);
            }
        }
        try {
            provider().close();
        } catch (RuntimeException e) {
            failures.add(e);
        }
        if (!failures.isEmpty()) {
            AssertionError error = new AssertionError("cleanup after the test failed on entry '"
                    + target.entryName() + "'; instances that may be left behind: " + leftovers);
            failures.forEach(error::addSuppressed);
            throw error;
        }
    }

    private AssertionError missingHook(Capability capability, String hook, UnsupportedOperationException cause) {
        return new AssertionError("the target declares " + capability + " but its harness has no '" + hook
                + "' hook: implement ConformanceHarness." + hook + " or drop the declaration", cause);
    }

    /** Waits a little between two polls, in proportion to the state timeout. */
    void pause() {
        long millis = Math.max(10, Math.min(200, target.stateTimeout().toMillis() / 20));
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for an instance", e);
        }
    }
}

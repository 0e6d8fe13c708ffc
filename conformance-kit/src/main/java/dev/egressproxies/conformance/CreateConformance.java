package dev.egressproxies.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.InstanceState;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.api.ZoneChoice;
import dev.egressproxies.api.conformance.Capability;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The conformance cases of {@code create} with valid requests: it returns a usable ID and is
 * idempotent by name, also under concurrency, for stopped instances and with other values; a name
 * is one instance across the entry's zones, and a zone it cannot read stops it (TRANSIENT).
 */
abstract class CreateConformance extends ConformanceGroup {
    private static final int CONCURRENT_CALLERS = 8;

    CreateConformance(Supplier<ConformanceSession> session) {
        super(session);
    }

    @Test
    void returnsAnIdThatGetAccepts() {
        String name = names().name("a");
        String id = session().create(session().request(name));

        assertThat(id).isNotBlank();
        Instance instance = session().get(id);
        assertThat(instance.id()).isEqualTo(id);
        assertThat(instance.name()).isEqualTo(name);
    }

    @Test
    void createTwiceWithOneNameGivesOneIdAndOneInstance() {
        CreateRequest request = session().request(names().name("twice"));

        String first = session().create(request);
        String second = session().create(request);

        assertThat(second).as("ID of the second create of '%s'", request.name()).isEqualTo(first);
        assertThat(session().listedNamed(request.name())).as("managed instances called '%s'", request.name())
                .hasSize(1);
    }

    @Test
    void concurrentCreatesOfOneNameGiveOneInstance() throws Exception {
        CreateRequest request = session().request(names().name("race"));
        CountDownLatch startTogether = new CountDownLatch(1);
        ExecutorService callers = Executors.newFixedThreadPool(CONCURRENT_CALLERS);
        Set<String> ids = new HashSet<>();
        try {
            List<Future<String>> results = new ArrayList<>();
            for (int i = 0; i < CONCURRENT_CALLERS; i++) {
                results.add(callers.submit(() -> {
                    startTogether.await();
                    return session().create(request);
                }));
            }
            startTogether.countDown();
            for (Future<String> result : results) {
                ids.add(idOrRetry(result, request));
            }
        } finally {
            callers.shutdownNow();
        }

        assertThat(ids).as("IDs returned to concurrent creates of one name").hasSize(1);
        assertThat(session().listedNamed(request.name())).as("managed instances called '%s'", request.name())
                .hasSize(1);
    }

    @Test
    void concurrentCreatesOfOneNameInTwoZonesGiveOneInstance() throws Throwable {
        dependingOn(Capability.MULTIPLE_ZONES, () -> {
            String name = names().name("zonerace");
            List<CreateRequest> requests = List.of(session().request(name),
                    session().request(name, target().placementInAnotherZone()));
            CountDownLatch startTogether = new CountDownLatch(1);
            ExecutorService callers = Executors.newFixedThreadPool(requests.size());
            List<String> made = new ArrayList<>();
            List<ProviderException> refused = new ArrayList<>();
            try {
                List<Future<String>> results = new ArrayList<>();
                for (CreateRequest request : requests) {
                    results.add(callers.submit(() -> {
                        startTogether.await();
                        return session().create(request);
                    }));
                }
                startTogether.countDown();
                for (Future<String> result : results) {
                    try {
                        made.add(result.get());
                    } catch (ExecutionException e) {
                        if (!(e.getCause() instanceof ProviderException error)) {
                            throw e;
                        }
                        refused.add(error);
                    }
                }
            } finally {
                callers.shutdownNow();
            }

            List<Instance> listed = session().listedNamed(name);
            assertThat(listed).as("managed instances called '%s' after two creates in two zones at once", name)
                    .hasSize(1);
            assertThat(made).as("IDs the two creates returned").containsOnly(listed.get(0).id());
            for (ProviderException error : refused) {
                assertThat(error.kind()).as("kind of the create that lost: %s", error.getMessage())
                        .isIn(ErrorKind.PERMANENT, ErrorKind.TRANSIENT);
                if (error.kind() == ErrorKind.PERMANENT) {
                    assertThat(error.getMessage()).as("the loser names the instance").contains(listed.get(0).id());
                }
            }
        }, () -> {
            // One zone: nothing to race across; the same-zone race above covers it.
        });
    }

    @Test
    void differentNamesGiveDifferentIds() {
        String first = session().create("first");
        String second = session().create("second");

        assertThat(first).as("IDs of two instances with different names").isNotEqualTo(second);
        assertThat(session().get(second).name()).isEqualTo(names().name("second"));
    }

    @Test
    void repeatedCreateKeepsUidAndCreationTime() throws InterruptedException {
        CreateRequest request = session().request(names().name("again"));
        Instance before = session().get(session().create(request));
        // Let the clock move past the creation time's likely precision, so that a backend that
        // rebuilt the instance would report a different creation time.
        Thread.sleep(1_100);

        Instance after = session().get(session().create(request));

        assertThat(after.id()).as("ID after a repeated create").isEqualTo(before.id());
        assertThat(after.uid()).as("UID after a repeated create").isEqualTo(before.uid());
        assertThat(after.createdAt()).as("creation time after a repeated create").isEqualTo(before.createdAt());
    }

    @Test
    void acceptsANameOf63Characters() {
        String name = names().nameOfLength(63);

        String id = session().create(session().request(name));

        assertThat(session().get(id).name()).isEqualTo(name).hasSize(63);
    }

    @Test
    void acceptsCloudInitAtTheSizeLimit() {
        String header = "#cloud-config\n# ";
        String cloudInit = header + "x".repeat(CreateRequest.MAX_CLOUD_INIT_BYTES - header.length());
        String name = names().name("large");

        String id = session().create(new CreateRequest(name, ConformanceSession.uidFor(name),
                target().primaryPlacement(), cloudInit));

        assertThat(session().get(id).name()).isEqualTo(name);
    }

    @Test
    void createStartsAStoppedInstance() throws Throwable {
        withHook(Capability.STOPS_INSTANCES, () -> {
            CreateRequest request = session().request(names().name("stopped"));
            String id = session().create(request);
            session().stop(id);
            session().awaitInstance(id, instance -> instance.state() == InstanceState.STOPPED, "STOPPED");

            assertThat(session().create(request)).as("ID of a create of the stopped instance").isEqualTo(id);

            if (target().has(Capability.REACHES_RUNNING)) {
                session().awaitInstance(id, instance -> instance.state() == InstanceState.RUNNING, "RUNNING again");
            } else {
                session().awaitInstance(id, instance -> instance.state() == InstanceState.PROVISIONING,
                        "PROVISIONING again");
            }
        }, () -> target().harness().stop(target().unknownId()));
    }

    @Test
    void sameNameInAnotherZoneIsPermanentNamingTheFirstInstance() throws Throwable {
        String name = names().name("zones");
        String id = session().create(session().request(name));
        dependingOn(Capability.MULTIPLE_ZONES, () -> {
            CreateRequest elsewhere = session().request(name, target().placementInAnotherZone());

            ProviderException error = ProviderErrors.thrownBy("create of a name that exists in another zone",
                    () -> session().create(elsewhere));

            ProviderErrors.assertCreateError(error, ErrorKind.PERMANENT, entry(), name);
            assertThat(error.getMessage()).as("the error names the existing instance's ID").contains(id);
            assertThat(session().listedNamed(name)).as("managed instances called '%s'", name)
                    .extracting(Instance::id).containsExactly(id);
        }, () -> {
            // With one zone, the empty zone is that zone: the same name is the same instance.
            Placement primary = target().primaryPlacement();
            Placement defaultZone = new Placement("", primary.machineType(), primary.image());

            assertThat(session().create(session().request(name, defaultZone)))
                    .as("ID of the same name with an empty zone, which selects the only zone").isEqualTo(id);
        });
    }

    @Test
    void unreadableZoneMakesCreateTransientNamingTheZone() throws Throwable {
        withHook(Capability.MAKES_ZONES_UNREADABLE, () -> {
            String name = names().name("unread");
            // Among several zones, an unreadable zone other than the one created in must stop the
            // create too: the name could exist there.
            String zone = target().has(Capability.MULTIPLE_ZONES)
                    ? target().placementInAnotherZone().zone()
                    : target().primaryPlacement().zone();
            session().makeZoneUnreadable(zone);

            ProviderException error = ProviderErrors.thrownBy("create with zone " + zone + " unreadable",
                    () -> session().create(session().request(name)));

            ProviderErrors.assertCreateError(error, ErrorKind.TRANSIENT, entry(), name);
            assertThat(error.getMessage()).as("the error names the unreadable zone").contains(zone);
            session().restore();
            session().assertNothingCalled(name);
        }, () -> target().harness().makeZoneUnreadable(target().primaryPlacement().zone()));
    }

    @Test
    void createOfAnExistingNameWithOtherValuesChangesNothing() {
        CreateRequest request = session().request(names().name("othervalues"));
        String id = session().create(request);
        Instance before = session().get(id);

        String again = session().create(new CreateRequest(request.name(), "other-" + request.uid(),
                request.placement(), request.cloudInit() + "# changed\n"));

        Instance after = session().get(again);
        assertThat(again).as("ID of a create of the existing name with other values").isEqualTo(id);
        assertThat(after.uid()).as("UID after a create with another UID").isEqualTo(before.uid());
        assertThat(after.userDataSha256()).as("user-data digest after a create with other user-data")
                .isEqualTo(before.userDataSha256());
        assertThat(after.placement()).as("placement after a repeated create").isEqualTo(before.placement());
    }

    @Test
    void emptyZoneSelectsTheOnlyZoneOrIsPlacedAmongSeveral() throws Throwable {
        String name = names().name("nozone");
        Placement primary = target().primaryPlacement();
        Placement anyZone = new Placement("", primary.machineType(), primary.image());
        CreateRequest request = session().request(name, anyZone);
        if (target().has(Capability.MULTIPLE_ZONES) && !target().has(Capability.PLACES_INSTANCES)) {
            session().assertRejected(request);
            return;
        }
        Set<String> zones = new HashSet<>();
        target().placements().forEach(placement -> zones.add(placement.zone()));
        dependingOn(Capability.PLACES_INSTANCES, () -> {
            List<ZoneChoice> choices = provider().place(List.of(anyZone, anyZone, primary), session().deadline());
            assertThat(choices).as("place's answer for two placements without zone and one with").hasSize(3);
            assertThat(choices.get(0).zone()).as("zone chosen for a placement without one").isIn(zones);
            assertThat(choices.get(1).zone()).as("zone chosen for a second placement without one").isIn(zones);
            assertThat(choices.get(2).zone()).as("zone of a placement that names one").isEqualTo(primary.zone());
        }, () -> { });
        provider().validate(request);
        String id = session().create(request);

        Instance created = session().get(id);
        assertThat(created.name()).isEqualTo(name);
        assertThat(created.placement().zone()).as("zone recorded for a request without one").isIn(zones);
        assertThat(session().create(request)).as("ID of a second create of the name without zone").isEqualTo(id);
        assertThat(session().listedNamed(name)).as("managed instances called '%s'", name).extracting(Instance::id)
                .containsExactly(id);
    }

    /**
     * The ID a concurrent create returned; a caller that lost the race with a TRANSIENT error
     * (which the contract allows: retry) retries once on its own.
     */
    private String idOrRetry(Future<String> result, CreateRequest request) throws InterruptedException {
        try {
            return result.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof ProviderException error && error.kind() == ErrorKind.TRANSIENT) {
                return session().create(request);
            }
            throw new AssertionError("a concurrent create failed with other than TRANSIENT", e.getCause());
        }
    }

    @Test
    void aNameHeldByAnUnmanagedInstanceIsRefusedAndNothingIsAdopted() throws Throwable {
        withHook(Capability.PLANTS_UNMANAGED_INSTANCES, () -> {
            String name = names().name("held");
            String foreign = session().plantUnmanaged(target().primaryPlacement(), name);

            ProviderException error = ProviderErrors.thrownBy("create of a name an unmanaged instance holds",
                    () -> session().create(session().request(name)));

            ProviderErrors.assertCreateError(error, ErrorKind.PERMANENT, entry(), name);
            assertThat(session().listedNamed(name)).as("managed instances called '%s'", name).isEmpty();
            assertThat(session().get(foreign).uid()).as("the unmanaged instance, untouched").isEmpty();
        }, () -> target().harness().plantUnmanaged(target().primaryPlacement(), names().name("probe")));
    }
}

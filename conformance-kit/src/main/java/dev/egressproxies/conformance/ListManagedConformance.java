package dev.egressproxies.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.api.conformance.Capability;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The conformance cases of {@code listManaged}: it lists every instance the platform created in
 * every zone, leaves out instances made by anyone else, and fails whole rather than partially.
 */
abstract class ListManagedConformance extends ConformanceGroup {

    ListManagedConformance(Supplier<ConformanceSession> session) {
        super(session);
    }

    @Test
    void includesWhatWasCreated() {
        String name = names().name("listed");
        String id = session().create(session().request(name));
        Instance fromGet = session().get(id);

        assertThat(session().listed(id)).as("listing of %s", id).hasValueSatisfying(listed -> {
            assertThat(listed.name()).isEqualTo(name);
            assertThat(listed.uid()).isEqualTo(ConformanceSession.uidFor(name));
            assertThat(listed.createdAt()).isEqualTo(fromGet.createdAt());
        });
    }

    @Test
    void reportsThePlacementAndUserDataDigestItWasCreatedWith() {
        Map<String, CreateRequest> created = session().createOnePerPlacement("placed");

        List<Instance> listed = session().listManaged();

        created.forEach((id, request) -> {
            Instance instance = listed.stream().filter(candidate -> candidate.id().equals(id)).findFirst()
                    .orElseThrow(() -> new AssertionError("listManaged left out " + id + "; it listed " + listed));
            ConformanceSession.assertCreatedAs(instance, request, "listManaged");
        });
    }

    @Test
    void excludesUnmanagedInstances() throws Throwable {
        withHook(Capability.PLANTS_UNMANAGED_INSTANCES, () -> {
            String managed = session().create("managed");
            String foreignName = names().name("foreign");
            String foreign = session().plantUnmanaged(target().primaryPlacement(), foreignName);

            List<Instance> listed = session().listManaged();

            assertThat(listed).extracting(Instance::id)
                    .as("IDs listed, which include the managed %s and leave out the unmanaged %s", managed, foreign)
                    .contains(managed).doesNotContain(foreign);
            assertThat(listed).extracting(Instance::name).as("names listed").doesNotContain(foreignName);
        }, () -> target().harness().plantUnmanaged(target().primaryPlacement(), names().name("probe")));
    }

    @Test
    void coversEveryZone() {
        List<String> ids = createOnePerZone("zone");

        assertThat(session().listManaged()).extracting(Instance::id).as("IDs listed, one created per zone")
                .containsAll(ids);
    }

    @Test
    void failsWholeWhenAZoneIsUnreadable() throws Throwable {
        withHook(Capability.MAKES_ZONES_UNREADABLE, () -> {
            createOnePerZone("whole");
            List<Placement> placements = target().placements();
            session().makeZoneUnreadable(placements.get(placements.size() - 1).zone());

            ProviderException error = ProviderErrors.thrownBy("listManaged with an unreadable zone",
                    () -> session().listManaged());

            ProviderErrors.assertListError(error, ErrorKind.TRANSIENT, entry());
            session().restore();
            assertThat(session().listManaged()).as("listManaged once the zone is readable again").isNotEmpty();
        }, () -> target().harness().makeZoneUnreadable(target().primaryPlacement().zone()));
    }

    @Test
    void listedIdsAreAcceptedByGet() {
        createOnePerZone("found");

        List<Instance> ours = session().listManaged().stream()
                .filter(instance -> names().isOurs(instance.name()))
                .toList();

        assertThat(ours).isNotEmpty();
        for (Instance listed : ours) {
            assertThat(session().get(listed.id()).name()).isEqualTo(listed.name());
        }
    }

    /** Creates one instance in each zone the target's placements name, and returns their IDs. */
    private List<String> createOnePerZone(String purpose) {
        Map<String, Placement> byZone = new LinkedHashMap<>();
        target().placements().forEach(placement -> byZone.putIfAbsent(placement.zone(), placement));
        List<String> ids = new ArrayList<>();
        int index = 0;
        for (Placement placement : byZone.values()) {
            ids.add(session().create(session().request(names().name(purpose + index++), placement)));
        }
        return ids;
    }
}

package dev.egressproxies.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.InstanceState;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.api.conformance.Capability;
import java.time.Instant;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The conformance cases of {@code get}: what it reports about an instance (including the placement
 * and user-data digest it was created with), and how it fails for IDs that name no instance.
 */
abstract class GetConformance extends ConformanceGroup {

    GetConformance(Supplier<ConformanceSession> session) {
        super(session);
    }

    @Test
    void unknownIdIsNotFound() {
        String id = target().unknownId();

        ProviderException error = ProviderErrors.thrownBy("get of an unknown ID", () -> session().get(id));

        ProviderErrors.assertError(error, ErrorKind.NOT_FOUND, Operation.GET, entry(), id);
    }

    @Test
    void malformedIdIsPermanent() {
        String id = target().malformedId();

        ProviderException error = ProviderErrors.thrownBy("get of a malformed ID", () -> session().get(id));

        ProviderErrors.assertError(error, ErrorKind.PERMANENT, Operation.GET, entry(), id);
    }

    @Test
    void uidAndCreationTimeRoundTrip() {
        String name = names().name("times");
        Instant before = Instant.now().minus(target().clockSkew());
        String id = session().create(session().request(name));
        Instant after = Instant.now().plus(target().clockSkew());

        Instance instance = session().get(id);

        assertThat(instance.uid()).as("UID get reports").isEqualTo(ConformanceSession.uidFor(name));
        assertThat(instance.createdAt())
                .as("creation time, allowing %s of clock skew", target().clockSkew())
                .isNotNull()
                .isBetween(before, after);
    }

    @Test
    void newInstanceIsProvisioningOrRunning() {
        String id = session().create("fresh");

        assertThat(session().get(id).state()).as("state of a new instance").isIn(InstanceState.PROVISIONING, InstanceState.RUNNING);
    }

    @Test
    void reportsTheSameIdentityOnEveryCall() {
        String id = session().create("stable");

        Instance first = session().get(id);
        Instance second = session().get(id);

        assertThat(second.id()).isEqualTo(first.id()).isEqualTo(id);
        assertThat(second.name()).isEqualTo(first.name());
        assertThat(second.uid()).isEqualTo(first.uid());
        assertThat(second.createdAt()).isEqualTo(first.createdAt());
    }

    @Test
    void reportsThePlacementAndUserDataDigestItWasCreatedWith() {
        Map<String, CreateRequest> created = session().createOnePerPlacement("placed");

        created.forEach((id, request) -> ConformanceSession.assertCreatedAs(session().get(id), request, "get"));
    }

    @Test
    void anUnmanagedInstanceIsReportedWithoutUidOrCreationTime() throws Throwable {
        withHook(Capability.PLANTS_UNMANAGED_INSTANCES, () -> {
            String name = names().name("foreign");
            String foreign = session().plantUnmanaged(target().primaryPlacement(), name);

            Instance instance = session().get(foreign);

            assertThat(instance.id()).isEqualTo(foreign);
            assertThat(instance.name()).isEqualTo(name);
            assertThat(instance.uid()).as("UID of an instance this platform did not create").isEmpty();
            assertThat(instance.createdAt()).as("creation time of an instance this platform did not create").isNull();
        }, () -> target().harness().plantUnmanaged(target().primaryPlacement(), names().name("probe")));
    }
}

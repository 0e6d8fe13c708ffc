package dev.egressproxies.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.api.conformance.Capability;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The conformance cases of {@code delete}: it is idempotent, removes the instance from get and
 * listManaged, and touches nothing else.
 */
abstract class DeleteConformance extends ConformanceGroup {

    DeleteConformance(Supplier<ConformanceSession> session) {
        super(session);
    }

    @Test
    void deleteTwiceSucceeds() {
        String id = session().create("twice");

        provider().delete(id, session().deadline());

        assertThatCode(() -> provider().delete(id, session().deadline())).doesNotThrowAnyException();
    }

    @Test
    void deleteOfAnUnknownIdSucceeds() {
        assertThatCode(() -> provider().delete(target().unknownId(), session().deadline()))
                .doesNotThrowAnyException();
    }

    @Test
    void afterDeleteGetIsNotFound() {
        String id = session().create("gone");

        provider().delete(id, session().deadline());

        ProviderException error = ProviderErrors.thrownBy("get after delete", () -> session().get(id));
        ProviderErrors.assertError(error, ErrorKind.NOT_FOUND, Operation.GET, entry(), id);
    }

    @Test
    void afterDeleteListManagedLacksIt() {
        String id = session().create("unlisted");

        provider().delete(id, session().deadline());

        assertThat(session().listed(id)).as("listing of the deleted %s", id).isEmpty();
        assertThat(session().listedNamed(names().name("unlisted"))).as("instances with the deleted one's name").isEmpty();
    }

    @Test
    void malformedIdIsPermanent() {
        String id = target().malformedId();

        ProviderException error = ProviderErrors.thrownBy("delete of a malformed ID",
                () -> provider().delete(id, session().deadline()));

        ProviderErrors.assertError(error, ErrorKind.PERMANENT, Operation.DELETE, entry(), id);
    }

    @Test
    void deleteLeavesOtherInstancesAlone() {
        String doomed = session().create("doomed");
        String survivor = session().create("survivor");

        provider().delete(doomed, session().deadline());

        assertThat(session().get(survivor).name()).isEqualTo(names().name("survivor"));
        assertThat(session().listed(survivor)).as("listing of %s after deleting another", survivor).isPresent();
    }

    @Test
    void nameCanBeReusedAfterDelete() {
        CreateRequest request = session().request(names().name("reborn"));
        String first = session().create(request);
        provider().delete(first, session().deadline());

        String second = session().create(request);

        assertThat(session().get(second).name()).isEqualTo(request.name());
        assertThat(session().listedNamed(request.name())).as("managed instances called '%s'", request.name())
                .hasSize(1);
    }

    @Test
    void anUnmanagedInstanceIsNeverDeleted() throws Throwable {
        withHook(Capability.PLANTS_UNMANAGED_INSTANCES, () -> {
            String foreign = session().plantUnmanaged(target().primaryPlacement(), names().name("not-ours"));

            ProviderException error = ProviderErrors.thrownBy("delete of an unmanaged instance",
                    () -> provider().delete(foreign, session().deadline()));

            ProviderErrors.assertError(error, ErrorKind.PERMANENT, Operation.DELETE, entry(), foreign);
            assertThat(session().get(foreign).id()).as("the unmanaged instance, still there").isEqualTo(foreign);
        }, () -> target().harness().plantUnmanaged(target().primaryPlacement(), names().name("probe")));
    }
}

package dev.egressproxies.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.ProviderException;
import java.time.Duration;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The conformance cases of error context: whichever operation fails, its error carries the
 * operation, the entry and the instance, and its message repeats them so a log line alone says
 * where to look.
 */
abstract class ErrorContextConformance extends ConformanceGroup {

    ErrorContextConformance(Supplier<ConformanceSession> session) {
        super(session);
    }

    @Test
    void createErrorNamesCreateTheEntryAndTheInstance() {
        String name = names().name("context");
        Placement primary = target().primaryPlacement();
        Placement nowhere = new Placement(names().name("nowhere"), primary.machineType(), primary.image());

        ProviderException error = ProviderErrors.thrownBy("create in an unknown zone",
                () -> session().create(session().request(name, nowhere)));

        ProviderErrors.assertCreateError(error, ErrorKind.PERMANENT, entry(), name);
        assertThat(error.getMessage()).contains(entry(), name);
    }

    @Test
    void getErrorNamesGetTheEntryAndTheId() {
        String id = target().unknownId();

        ProviderException error = ProviderErrors.thrownBy("get of an unknown ID", () -> session().get(id));

        ProviderErrors.assertError(error, ErrorKind.NOT_FOUND, Operation.GET, entry(), id);
        assertThat(error.getMessage()).contains(entry(), id);
    }

    @Test
    void deleteErrorNamesDeleteTheEntryAndTheId() {
        String id = target().malformedId();

        ProviderException error = ProviderErrors.thrownBy("delete of a malformed ID",
                () -> provider().delete(id, session().deadline()));

        ProviderErrors.assertError(error, ErrorKind.PERMANENT, Operation.DELETE, entry(), id);
        assertThat(error.getMessage()).contains(entry(), id);
    }

    @Test
    void listManagedErrorNamesListManagedAndTheEntry() {
        ProviderException error = ProviderErrors.thrownBy("listManaged with an expired deadline",
                () -> provider().listManaged(Deadline.after(Duration.ZERO)));

        ProviderErrors.assertListError(error, ErrorKind.TRANSIENT, entry());
        assertThat(error.getMessage()).contains(entry());
    }
}

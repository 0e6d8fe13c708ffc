package dev.egressproxies.conformance;

import static org.assertj.core.api.Assertions.assertThatCode;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.conformance.Capability;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The conformance cases of {@code validate}: it accepts what create accepts and, without any I/O,
 * answers even while the backend hangs. That it rejects what create rejects, with the same kind
 * and detail, is checked with every invalid request of the {@code RejectedRequest} group.
 */
abstract class ValidateConformance extends ConformanceGroup {
    /** How long validate may take at most while the backend hangs; far beyond pure computation. */
    private static final Duration WITHOUT_THE_BACKEND = Duration.ofSeconds(10);

    ValidateConformance(Supplier<ConformanceSession> session) {
        super(session);
    }

    @Test
    void acceptsWhatCreateAcceptsAndCreatesNothing() {
        List<CreateRequest> valid = validRequests();

        for (CreateRequest request : valid) {
            assertThatCode(() -> provider().validate(request)).as("validate of the valid %s", request)
                    .doesNotThrowAnyException();
        }
        valid.forEach(request -> session().assertNothingCalled(request.name()));
    }

    @Test
    void answersWhileTheBackendHangs() throws Throwable {
        withHook(Capability.HANGS_ON_DEMAND, () -> {
            session().hang(Operation.CREATE);
            CreateRequest valid = session().request(names().name("hung"));
            CreateRequest invalid = session().request(names().name("Hung"));

            BoundedCall.start("validate of a valid request while create hangs", () -> provider().validate(valid))
                    .awaitReturn(WITHOUT_THE_BACKEND);
            BoundedCall.start("validate of an invalid request while create hangs", () -> provider().validate(invalid))
                    .awaitError(WITHOUT_THE_BACKEND);
        }, () -> target().harness().hang(Operation.CREATE));
    }

    /** Valid requests at the limits the Create group checks create with: every placement, and the longest values. */
    private List<CreateRequest> validRequests() {
        List<CreateRequest> valid = new ArrayList<>();
        int index = 0;
        for (Placement placement : target().placements()) {
            valid.add(session().request(names().name("valid" + index++), placement));
        }
        String header = "#cloud-config\n# ";
        String name = names().name("large");
        valid.add(new CreateRequest(name, ConformanceSession.uidFor(name), target().primaryPlacement(),
                header + "x".repeat(CreateRequest.MAX_CLOUD_INIT_BYTES - header.length())));
        valid.add(session().request(names().nameOfLength(63)));
        if (!target().has(Capability.MULTIPLE_ZONES)) {
            Placement primary = target().primaryPlacement();
            valid.add(session().request(names().name("nozone"), new Placement("", primary.machineType(),
                    primary.image())));
        }
        return valid;
    }
}

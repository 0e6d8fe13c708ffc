package dev.egressproxies.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.api.conformance.Capability;
import java.time.Duration;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The conformance cases of deadlines and cancellation: a call whose deadline passes or whose
 * thread is interrupted returns promptly as TRANSIENT even when the backend hangs, and leaves
 * nothing the next call cannot repair.
 */
abstract class DeadlineConformance extends ConformanceGroup {
    /** The deadline given to calls into a hung backend; short, so the suite stays fast. */
    private static final Duration HUNG_CALL_DEADLINE = Duration.ofMillis(500);
    /** How soon after its deadline or interruption a call must return, per the contract. */
    private static final Duration PROMPTLY = Duration.ofSeconds(1);
    /** How long the suite waits before it declares a call stuck; beyond what it then asserts. */
    private static final Duration STUCK_AFTER = Duration.ofSeconds(10);
    /** How long a hung call runs before the suite interrupts it. */
    private static final Duration INTERRUPT_AFTER = Duration.ofMillis(300);

    DeadlineConformance(Supplier<ConformanceSession> session) {
        super(session);
    }

    @Test
    void hungCreateReturnsWithinASecondOfItsDeadline() throws Throwable {
        withHook(Capability.HANGS_ON_DEMAND, () -> {
            CreateRequest request = session().request(names().name("hungcreate"));
            session().hang(Operation.CREATE);

            ProviderException error = assertReturnsPromptlyAfterDeadline("hung create",
                    deadline -> provider().create(request, deadline));

            ProviderErrors.assertCreateError(error, ErrorKind.TRANSIENT, entry(), request.name());
        }, () -> target().harness().hang(Operation.CREATE));
    }

    @Test
    void hungGetReturnsWithinASecondOfItsDeadline() throws Throwable {
        withHook(Capability.HANGS_ON_DEMAND, () -> {
            String id = session().create("hungget");
            session().hang(Operation.GET);

            ProviderException error = assertReturnsPromptlyAfterDeadline("hung get",
                    deadline -> provider().get(id, deadline));

            ProviderErrors.assertError(error, ErrorKind.TRANSIENT, Operation.GET, entry(), id);
        }, () -> target().harness().hang(Operation.GET));
    }

    @Test
    void hungDeleteReturnsWithinASecondOfItsDeadline() throws Throwable {
        withHook(Capability.HANGS_ON_DEMAND, () -> {
            String id = session().create("hungdelete");
            session().hang(Operation.DELETE);

            ProviderException error = assertReturnsPromptlyAfterDeadline("hung delete",
                    deadline -> provider().delete(id, deadline));

            ProviderErrors.assertError(error, ErrorKind.TRANSIENT, Operation.DELETE, entry(), id);
        }, () -> target().harness().hang(Operation.DELETE));
    }

    @Test
    void hungListManagedReturnsWithinASecondOfItsDeadline() throws Throwable {
        withHook(Capability.HANGS_ON_DEMAND, () -> {
            session().hang(Operation.LIST_MANAGED);

            ProviderException error = assertReturnsPromptlyAfterDeadline("hung listManaged",
                    deadline -> provider().listManaged(deadline));

            ProviderErrors.assertListError(error, ErrorKind.TRANSIENT, entry());
        }, () -> target().harness().hang(Operation.LIST_MANAGED));
    }

    @Test
    void interruptedCallIntoAHungBackendReturnsPromptlyAndKeepsTheFlag() throws Throwable {
        withHook(Capability.HANGS_ON_DEMAND, () -> {
            String id = session().create("interrupted");
            session().hang(Operation.GET);
            // A deadline far beyond the test, so only the interruption can end the call.
            BoundedCall call = BoundedCall.start("hung get", () -> provider().get(id, session().deadline()));
            Thread.sleep(INTERRUPT_AFTER.toMillis());

            call.interrupt();

            ProviderException error = call.awaitError(STUCK_AFTER);
            assertThat(call.elapsedAfterInterrupt()).as("time from interrupt to return").isLessThanOrEqualTo(PROMPTLY);
            assertThat(call.interruptFlagAfterwards()).as("interrupt flag after the call").isTrue();
            ProviderErrors.assertError(error, ErrorKind.TRANSIENT, Operation.GET, entry(), id);
        }, () -> target().harness().hang(Operation.GET));
    }

    @Test
    void createRepairsWhatAHungCreateLeft() throws Throwable {
        withHook(Capability.HANGS_ON_DEMAND, () -> {
            CreateRequest request = session().request(names().name("repaired"));
            session().hang(Operation.CREATE);
            assertReturnsPromptlyAfterDeadline("hung create", deadline -> provider().create(request, deadline));
            session().restore();

            String id = session().create(request);

            assertThat(session().get(id).name()).isEqualTo(request.name());
            assertThat(session().listedNamed(request.name())).as("managed instances called '%s'", request.name())
                    .hasSize(1);
        }, () -> target().harness().hang(Operation.CREATE));
    }

    @Test
    void expiredDeadlineIsTransient() {
        String id = session().create("late");

        ProviderException error = expired("get with an expired deadline", () -> provider().get(id, expiredDeadline()));

        ProviderErrors.assertError(error, ErrorKind.TRANSIENT, Operation.GET, entry(), id);
    }

    @Test
    void createRepairsWhatACreateWithAnExpiredDeadlineLeft() {
        CreateRequest request = session().request(names().name("retried"));
        ProviderException error = expired("create with an expired deadline",
                () -> provider().create(request, expiredDeadline()));
        ProviderErrors.assertCreateError(error, ErrorKind.TRANSIENT, entry(), request.name());

        String id = session().create(request);

        assertThat(session().get(id).name()).isEqualTo(request.name());
        assertThat(session().listedNamed(request.name())).as("managed instances called '%s'", request.name())
                .hasSize(1);
    }

    @Test
    void callerInterruptedBeforeTheCallGetsTransientAndKeepsTheFlag() {
        String id = session().create("preinterrupted");

        BoundedCall call = BoundedCall.startInterrupted("get by an interrupted thread",
                () -> provider().get(id, session().deadline()));

        ProviderException error = call.awaitError(STUCK_AFTER);
        assertThat(call.elapsed()).as("time to return").isLessThanOrEqualTo(PROMPTLY);
        assertThat(call.interruptFlagAfterwards()).as("interrupt flag after the call").isTrue();
        ProviderErrors.assertError(error, ErrorKind.TRANSIENT, Operation.GET, entry(), id);
    }

    /** Runs a call with a short deadline and asserts it fails no later than a second after it. */
    private ProviderException assertReturnsPromptlyAfterDeadline(String description, DeadlineCall call) {
        Deadline deadline = Deadline.after(HUNG_CALL_DEADLINE);
        BoundedCall bounded = BoundedCall.start(description, () -> call.run(deadline));

        ProviderException error = bounded.awaitError(STUCK_AFTER);

        assertThat(bounded.elapsed()).as("time %s took with a deadline of %s", description, HUNG_CALL_DEADLINE)
                .isLessThanOrEqualTo(HUNG_CALL_DEADLINE.plus(PROMPTLY));
        return error;
    }

    private ProviderException expired(String description, Executable call) {
        BoundedCall bounded = BoundedCall.start(description, call);
        ProviderException error = bounded.awaitError(STUCK_AFTER);
        assertThat(bounded.elapsed()).as("time %s took", description).isLessThanOrEqualTo(PROMPTLY);
        return error;
    }

    private static Deadline expiredDeadline() {
        return Deadline.after(Duration.ZERO);
    }

    /** A provider call that takes the deadline under test. */
    @FunctionalInterface
    private interface DeadlineCall {
        void run(Deadline deadline) throws Exception;
    }
}

package dev.egressproxies.fake;

import static dev.egressproxies.fake.TestProviders.START;
import static dev.egressproxies.fake.TestProviders.providerError;
import static dev.egressproxies.fake.TestProviders.request;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Deadlines and interrupts: every call returns promptly, as TRANSIENT, however the backend hangs. */
class CancellationTest {
    private static final Duration DEADLINE = Duration.ofMillis(300);
    private static final Duration PROMPTLY = Duration.ofSeconds(1);

    private final FakeProvider provider = TestProviders.inMemory();

    @ParameterizedTest
    @EnumSource(value = Operation.class, names = {"CREATE", "GET", "DELETE", "LIST_MANAGED"})
    void hungCallReturnsWithinASecondOfItsDeadline(Operation operation) {
        provider.faults().hang(operation);

        long start = System.nanoTime();
        ProviderException error = providerError(() -> call(operation, Deadline.after(DEADLINE)), ErrorKind.TRANSIENT,
                operation, idFor(operation));
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);

        assertThat(elapsed).isGreaterThanOrEqualTo(DEADLINE).isLessThan(DEADLINE.plus(PROMPTLY));
        assertThat(error.detail()).contains("deadline exceeded");
    }

    @Test
    void latencyLongerThanTheDeadlineEndsAtTheDeadline() {
        provider.faults().latency(Operation.GET, Duration.ofMinutes(5));

        long start = System.nanoTime();
        providerError(() -> provider.get("zone-a/proxy-1", Deadline.after(DEADLINE)), ErrorKind.TRANSIENT,
                Operation.GET, "zone-a/proxy-1");

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(DEADLINE.plus(PROMPTLY));
    }

    @Test
    void hungCreateThatTimesOutCreatesNothing() {
        provider.faults().hang(Operation.CREATE);

        providerError(() -> provider.create(request("proxy-1"), Deadline.after(DEADLINE)), ErrorKind.TRANSIENT,
                Operation.CREATE, "zone-a/proxy-1");

        provider.faults().clear();
        assertThat(provider.listManaged(Deadline.after(PROMPTLY))).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(value = Operation.class, names = {"CREATE", "GET", "DELETE", "LIST_MANAGED"})
    void interruptedHungCallReturnsPromptlyAndKeepsTheInterruptFlag(Operation operation) throws Exception {
        provider.faults().hang(operation);
        AtomicBoolean flagKept = new AtomicBoolean();
        CompletableFuture<ProviderException> outcome = new CompletableFuture<>();
        Thread caller = new Thread(() -> {
            try {
                call(operation, Deadline.none());
                outcome.completeExceptionally(new AssertionError("the hung call returned normally"));
            } catch (ProviderException expected) {
                flagKept.set(Thread.currentThread().isInterrupted());
                outcome.complete(expected);
            }
        });
        caller.start();
        TimeUnit.MILLISECONDS.sleep(200);

        long interruptedAt = System.nanoTime();
        caller.interrupt();
        ProviderException error = outcome.get(5, TimeUnit.SECONDS);

        assertThat(Duration.ofNanos(System.nanoTime() - interruptedAt)).isLessThan(PROMPTLY);
        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(error.operation()).isEqualTo(operation);
        assertThat(error.detail()).contains("interrupted");
        assertThat(flagKept).isTrue();
    }

    @Test
    void callOnAnInterruptedThreadFailsAtOnceAndCreatesNothing() throws Exception {
        CompletableFuture<Boolean> flagKept = new CompletableFuture<>();
        Thread caller = new Thread(() -> {
            Thread.currentThread().interrupt();
            try {
                provider.create(request("proxy-1"), Deadline.none());
                flagKept.completeExceptionally(new AssertionError("create ignored the interrupt"));
            } catch (ProviderException expected) {
                flagKept.complete(expected.kind() == ErrorKind.TRANSIENT && Thread.currentThread().isInterrupted());
            }
        });
        caller.start();

        assertThat(flagKept.get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(provider.listManaged(Deadline.after(PROMPTLY))).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(value = Operation.class, names = {"CREATE", "GET", "DELETE", "LIST_MANAGED"})
    void expiredDeadlineFailsAtOnceWithoutTouchingAnything(Operation operation) {
        provider.create(request("proxy-1"), Deadline.after(PROMPTLY));

        providerError(() -> call(operation, Deadline.after(Duration.ZERO)), ErrorKind.TRANSIENT, operation,
                idFor(operation));

        assertThat(provider.listManaged(Deadline.after(PROMPTLY))).hasSize(1);
    }

    @Test
    void hangConfiguredInSettingsHonoursTheDeadlineToo() {
        FakeConfig config = FakeConfig.defaults().withFault(Operation.GET, FaultConfig.hanging());
        FakeProvider configured = TestProviders.build(config, new ManualClock(START), Path.of("unused"));

        long start = System.nanoTime();
        providerError(() -> configured.get("zone-a/proxy-1", Deadline.after(DEADLINE)), ErrorKind.TRANSIENT,
                Operation.GET, "zone-a/proxy-1");

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(DEADLINE.plus(PROMPTLY));
    }

    private void call(Operation operation, Deadline deadline) {
        operations(deadline).get(operation).accept(provider);
    }

    private static Map<Operation, Consumer<FakeProvider>> operations(Deadline deadline) {
        return Map.of(
                Operation.CREATE, provider -> provider.create(request("proxy-1"), deadline),
                Operation.GET, provider -> provider.get("zone-a/proxy-1", deadline),
                Operation.DELETE, provider -> provider.delete("zone-a/proxy-1", deadline),
                Operation.LIST_MANAGED, provider -> provider.listManaged(deadline));
    }

    private static String idFor(Operation operation) {
        return operation == Operation.LIST_MANAGED ? "" : "zone-a/proxy-1";
    }
}

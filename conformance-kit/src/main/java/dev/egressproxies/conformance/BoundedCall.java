package dev.egressproxies.conformance;

import static org.assertj.core.api.Assertions.fail;

import dev.egressproxies.api.ProviderException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.function.Executable;

/**
 * A provider call running on a thread of its own, so the suite can interrupt it and bound how
 * long it takes even when the backend never answers, without blocking the test thread for good.
 */
final class BoundedCall {
    private final String description;
    private final Thread thread;
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile Throwable failure;
    private volatile long elapsedNanos;
    private volatile long endNanos;
    private volatile long interruptedAtNanos;
    private volatile boolean interruptFlagAfterwards;

    private BoundedCall(String description, Executable call, boolean interruptFirst) {
        this.description = description;
        this.thread = new Thread(() -> run(call, interruptFirst), "conformance " + description);
        // A call that never returns must not keep the test JVM alive.
        this.thread.setDaemon(true);
    }

    /** Starts the call. */
    static BoundedCall start(String description, Executable call) {
        BoundedCall bounded = new BoundedCall(description, call, false);
        bounded.thread.start();
        return bounded;
    }

    /** Starts the call on a thread whose interrupt flag is already set. */
    static BoundedCall startInterrupted(String description, Executable call) {
        BoundedCall bounded = new BoundedCall(description, call, true);
        bounded.thread.start();
        return bounded;
    }

    /** Interrupts the calling thread, as a caller cancelling the call would. */
    void interrupt() {
        interruptedAtNanos = System.nanoTime();
        thread.interrupt();
    }

    /**
     * Waits for the call to end and returns the {@link ProviderException} it ended with.
     *
     * @param limit how long to wait at most
     * @throws AssertionError when the call is still running after {@code limit} (it is then
     *                        interrupted and abandoned), returned normally, or threw anything else
     */
    ProviderException awaitError(Duration limit) {
        awaitEnd(limit);
        if (failure == null) {
            return fail("%s returned normally, but should have failed", description);
        }
        if (!(failure instanceof ProviderException error)) {
            throw new AssertionError(description + " threw " + failure + " instead of a ProviderException",
                    failure);
        }
        return error;
    }

    /**
     * Waits for the call to end and requires that it returned normally.
     *
     * @param limit how long to wait at most
     * @throws AssertionError when the call is still running after {@code limit} (it is then
     *                        interrupted and abandoned) or threw
     */
    void awaitReturn(Duration limit) {
        awaitEnd(limit);
        if (failure != null) {
            throw new AssertionError(description + " threw " + failure + ", but should have returned normally",
                    failure);
        }
    }

    /** How long the call took; valid once it ended. */
    Duration elapsed() {
        return Duration.ofNanos(elapsedNanos);
    }

    /** How long the call went on after {@link #interrupt()}; valid once it ended. */
    Duration elapsedAfterInterrupt() {
        return Duration.ofNanos(Math.max(0, endNanos - interruptedAtNanos));
    }

    /** Whether the calling thread's interrupt flag was set when the call ended. */
    boolean interruptFlagAfterwards() {
        return interruptFlagAfterwards;
    }

    private void awaitEnd(Duration limit) {
        boolean ended;
        try {
            ended = finished.await(limit.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for " + description, e);
        }
        if (!ended) {
            thread.interrupt();
            fail("%s was still running after %s: the call does not honour its deadline or interruption",
                    description, limit);
        }
    }

    private void run(Executable call, boolean interruptFirst) {
        if (interruptFirst) {
            Thread.currentThread().interrupt();
        }
        long start = System.nanoTime();
        try {
            call.execute();
        } catch (Throwable e) {
            failure = e;
        } finally {
            endNanos = System.nanoTime();
            elapsedNanos = endNanos - start;
            interruptFlagAfterwards = Thread.currentThread().isInterrupted();
            finished.countDown();
        }
    }
}

package dev.egressproxies.kvm.common.image;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs an action when a fetch's time is up, unless closed first: records why and closes the HTTP
 * body, which makes a read blocked on it return with an error. This is what ends a stalled body,
 * since a read from the JDK's body stream takes no timeout.
 *
 * <p>Uses the JDK's shared delay scheduler ({@link CompletableFuture#orTimeout}), whose pending
 * timer is cancelled on close, so finished fetches leave nothing scheduled behind.
 */
final class BodyWatchdog implements AutoCloseable {
    private final CompletableFuture<Void> transfer;

    private BodyWatchdog(CompletableFuture<Void> transfer) {
        this.transfer = transfer;
    }

    /** Arms a watchdog that runs {@code action} after {@code delay}, on the scheduler's thread. */
    static BodyWatchdog arm(Duration delay, Runnable action) {
        CompletableFuture<Void> transfer = new CompletableFuture<>();
        transfer.orTimeout(Math.max(1, delay.toNanos()), TimeUnit.NANOSECONDS).whenComplete((ignored, failure) -> {
            if (failure instanceof TimeoutException) {
                action.run();
            }
        });
        return new BodyWatchdog(transfer);
    }

    /** Disarms the watchdog, unless it fired already. */
    @Override
    public void close() {
        transfer.complete(null);
    }
}

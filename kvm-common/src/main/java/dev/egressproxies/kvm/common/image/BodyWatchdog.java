package dev.egressproxies.kvm.common.image;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Cuts a fetch's body when its time is up, unless closed first: records why the fetch failed, then
 * closes the body, which makes a read blocked on it fail. This is what ends a body that stalls,
 * since a read from a response body takes no timeout.
 *
 * <p>Uses the JDK's shared delay scheduler ({@link CompletableFuture#orTimeout}), whose pending
 * timer is cancelled on close, so finished fetches leave nothing scheduled behind.
 */
final class BodyWatchdog implements AutoCloseable {
    private final CompletableFuture<Void> transfer;

    private BodyWatchdog(CompletableFuture<Void> transfer) {
        this.transfer = transfer;
    }

    /** Starts watching the fetch whose published bytes come from {@code body}. */
    static BodyWatchdog start(TransferClock clock, PublishedBytes published, BodyStream body, FailureLatch latch,
                              FetchFailures failures) {
        CompletableFuture<Void> transfer = new CompletableFuture<>();
        transfer.orTimeout(Math.max(1, clock.remaining().toNanos()), TimeUnit.NANOSECONDS)
                .whenComplete((ignored, failure) -> {
                    if (failure instanceof TimeoutException) {
                        latch.record(clock.timeUp(failures, "after " + published.progressText() + " arrived", null));
                        body.close();
                    }
                });
        return new BodyWatchdog(transfer);
    }

    /** Stops watching, unless the time was up already. */
    @Override
    public void close() {
        transfer.complete(null);
    }
}

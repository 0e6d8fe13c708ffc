package dev.egressproxies.kvm;

import dev.egressproxies.api.Deadline;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A guard that closes an image download when the caller's deadline passes, so a server that stops
 * sending in the middle of an image cannot hold the upload (and its thread) forever: a read
 * blocked on the body returns with an error once the body is closed.
 *
 * <p>Uses the JDK's shared delay scheduler ({@link CompletableFuture#orTimeout}); closing the
 * watchdog cancels the scheduled close.
 */
final class TransferWatchdog implements AutoCloseable {
    private final CompletableFuture<Void> transfer;

    private TransferWatchdog(CompletableFuture<Void> transfer) {
        this.transfer = transfer;
    }

    /** Starts watching: {@code response} is closed when {@code deadline} passes before {@link #close()}. */
    static TransferWatchdog watch(Deadline deadline, ImageResponse response) {
        CompletableFuture<Void> transfer = new CompletableFuture<>();
        if (deadline.isBounded()) {
            transfer.orTimeout(Math.max(1, deadline.remaining().toNanos()), TimeUnit.NANOSECONDS)
                    .whenComplete((ignored, failure) -> {
                        if (failure instanceof TimeoutException) {
                            response.close();
                        }
                    });
        }
        return new TransferWatchdog(transfer);
    }

    /** Stops watching. */
    @Override
    public void close() {
        transfer.complete(null);
    }
}

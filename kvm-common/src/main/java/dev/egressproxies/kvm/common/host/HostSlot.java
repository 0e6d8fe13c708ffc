package dev.egressproxies.kvm.common.host;

import dev.egressproxies.api.Deadline;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One host's place in {@link CachingHostConnections}: its cached link and the dial in progress,
 * guarded by a lock of its own so that hosts never wait for each other.
 *
 * <p>The lock is held only to read and swap the two fields, never while dialling or calling: a
 * dial runs on a worker thread and every caller that needs the host meanwhile waits for that one
 * dial, each up to its own deadline. A caller that gives up does not cancel the dial; its link is
 * cached for whoever comes next.
 */
final class HostSlot {
    private static final System.Logger LOGGER = System.getLogger(CachingHostConnections.class.getName());

    private final HostEndpoint host;
    private final HostDialer dialer;
    private final Duration dialTimeout;
    private final Executor workers;

    private HostLink link;
    private CompletableFuture<HostLink> dial;
    private boolean closed;

    HostSlot(HostEndpoint host, HostDialer dialer, Duration dialTimeout, Executor workers) {
        this.host = host;
        this.dialer = dialer;
        this.dialTimeout = dialTimeout;
        this.workers = workers;
    }

    /**
     * The host's live link: the cached one, or the result of the dial in progress, or of a new
     * one. Waits at most until {@code deadline}.
     *
     * @throws HostCallException when the dial failed, the deadline passed or the thread was
     *                           interrupted while waiting
     */
    HostLink acquire(Deadline deadline) {
        CompletableFuture<HostLink> pending;
        HostLink lost = null;
        synchronized (this) {
            if (closed) {
                throw CachingHostConnections.closedError();
            }
            if (link != null) {
                if (link.isAlive()) {
                    return link;
                }
                lost = link;
                link = null;
            }
            if (dial == null) {
                dial = startDial();
            }
            pending = dial;
        }
        if (lost != null) {
            LOGGER.log(Level.DEBUG, "libvirt link to host {0} lost, redialling", host.name());
            discard(lost);
        }
        return awaitDial(pending, deadline);
    }

    /**
     * Cuts {@code failed} and forgets it if it is still the cached link; a link that a redial
     * already replaced is cut without touching its successor.
     */
    void drop(HostLink failed, String reason) {
        synchronized (this) {
            if (link == failed) {
                link = null;
            }
        }
        LOGGER.log(Level.DEBUG, "libvirt link to host {0} dropped: {1}", host.name(), reason);
        discard(failed);
    }

    /** Refuses further calls and closes the cached link gracefully on a worker thread. */
    void close() {
        HostLink current;
        synchronized (this) {
            closed = true;
            current = link;
            link = null;
        }
        if (current != null) {
            // A graceful close says goodbye to the daemon, which may hang; the closing thread must not.
            closeInBackground(current);
        }
    }

    /** Starts a dial on a worker thread; called with the lock held. */
    private CompletableFuture<HostLink> startDial() {
        CompletableFuture<HostLink> attempt = new CompletableFuture<>();
        try {
            workers.execute(() -> runDial(attempt));
        } catch (RejectedExecutionException e) {
            throw CachingHostConnections.closedError();
        }
        return attempt;
    }

    private void runDial(CompletableFuture<HostLink> attempt) {
        long started = System.nanoTime();
        HostLink opened;
        try {
            opened = dialer.dial(host, Deadline.after(dialTimeout));
            if (opened == null) {
                throw new IllegalStateException("the dialer returned no link for host " + host.name());
            }
        } catch (Throwable failure) {
            finishDial(attempt, null);
            LOGGER.log(Level.DEBUG, "dialling host {0} failed after {1} ms: {2}", host.name(), millisSince(started),
                    failure.toString());
            attempt.completeExceptionally(failure);
            return;
        }
        if (!finishDial(attempt, opened)) {
            discard(opened);
            attempt.completeExceptionally(CachingHostConnections.closedError());
            return;
        }
        LOGGER.log(Level.DEBUG, "libvirt link to host {0} open after {1} ms", host.name(), millisSince(started));
        attempt.complete(opened);
    }

    /**
     * Records the end of a dial, before its waiters wake, so they find the link cached; false when
     * the pool closed meanwhile and the link must not be kept.
     */
    private synchronized boolean finishDial(CompletableFuture<HostLink> attempt, HostLink opened) {
        if (dial == attempt) {
            dial = null;
        }
        if (opened == null || closed) {
            return false;
        }
        link = opened;
        return true;
    }

    private HostLink awaitDial(CompletableFuture<HostLink> pending, Deadline deadline) {
        try {
            return pending.get(deadline.remaining().toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new HostCallException(HostCallException.Reason.DEADLINE_EXCEEDED, host.name(),
                    "the deadline passed while connecting to host " + describe() + "; the connection attempt goes on"
                            + " for later calls (it is given up after " + dialTimeout.toSeconds() + " s)", null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HostCallException(HostCallException.Reason.INTERRUPTED, host.name(),
                    "interrupted while connecting to host " + describe(), e);
        } catch (ExecutionException e) {
            throw dialFailure(e.getCause());
        }
    }

    /** A failure of its own for each waiter, so none shares a stack trace or suppressed list with another. */
    private HostCallException dialFailure(Throwable failure) {
        if (failure instanceof HostCallException dialError) {
            return new HostCallException(dialError.reason(), host.name(), dialError.getMessage(), dialError);
        }
        return new HostCallException(HostCallException.Reason.UNREACHABLE, host.name(),
                "connecting to host " + describe() + " failed: " + failure + "; the next call tries again", failure);
    }

    private String describe() {
        return host.name() + " (" + host.address() + ":" + host.port() + ")";
    }

    private void closeInBackground(HostLink current) {
        try {
            workers.execute(current::close);
        } catch (RejectedExecutionException e) {
            current.close();
        }
    }

    /**
     * Cuts a link that failed and releases it; the close is quick once the transport is gone. The
     * link is useless either way, so a failure to cut or release it is not the caller's concern.
     */
    private static void discard(HostLink failed) {
        try {
            failed.abort();
        } catch (RuntimeException ignored) {
            // Already unusable; closing below still releases what it holds.
        }
        try {
            failed.close();
        } catch (RuntimeException ignored) {
            // Nothing left to release that a retry could.
        }
    }

    private static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }
}

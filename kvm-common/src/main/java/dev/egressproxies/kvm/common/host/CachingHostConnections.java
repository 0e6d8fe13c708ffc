package dev.egressproxies.kvm.common.host;

import dev.egressproxies.api.Deadline;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The {@link HostConnections} of one provider entry: one cached {@link HostLink} per host, dialled
 * lazily through a {@link HostDialer} and redialled once it is no longer alive.
 *
 * <p>Work runs on a worker thread while the caller waits up to its deadline. libvirt's native
 * calls take no timeout and cannot be interrupted, so when the deadline passes or the caller is
 * interrupted the link is {@linkplain HostLink#abort() aborted} (its transport cut, which makes the
 * blocked call return), dropped from the cache, and the caller gets a {@link HostCallException}
 * at once; the abandoned work's result is discarded. Dials follow the same rule: a caller waits
 * for the host's one dial in progress only up to its own deadline.
 *
 * <p>Failures of the work: a {@link dev.egressproxies.kvm.common.libvirt.LibvirtException} with a
 * transport code, or any exception that is not a verdict of the work, drops the link and surfaces
 * as {@link HostCallException.Reason#UNREACHABLE}; other libvirt errors and verdicts ({@link
 * dev.egressproxies.api.ProviderException}, {@link IllegalArgumentException}, {@link
 * IllegalStateException}, {@link dev.egressproxies.kvm.common.libvirt.UploadSourceException}) are
 * rethrown as they are and leave the link alone.
 */
public final class CachingHostConnections implements HostConnections {
    /** How long a dial may take when none is given: the usual SSH handshake limit. */
    public static final Duration DEFAULT_DIAL_TIMEOUT = Duration.ofSeconds(30);

    private final HostDialer dialer;
    private final Duration dialTimeout;
    private final ExecutorService workers = WorkerThreads.newPool("egress-host-call");
    private final ConcurrentMap<HostEndpoint, HostSlot> slots = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** Connections made by {@code dialer}, each dial given {@link #DEFAULT_DIAL_TIMEOUT}. */
    public CachingHostConnections(HostDialer dialer) {
        this(dialer, DEFAULT_DIAL_TIMEOUT);
    }

    /**
     * Connections made by {@code dialer}, each dial given {@code dialTimeout}: it runs for whoever
     * needs the host next, independently of the deadline of the caller that started it.
     */
    public CachingHostConnections(HostDialer dialer, Duration dialTimeout) {
        this.dialer = Objects.requireNonNull(dialer, "dialer");
        this.dialTimeout = Objects.requireNonNull(dialTimeout, "dialTimeout");
        if (dialTimeout.isNegative() || dialTimeout.isZero()) {
            throw new IllegalArgumentException("dial timeout " + dialTimeout + " must be positive");
        }
    }

    @Override
    public <T> T call(HostEndpoint host, Deadline deadline, HostCall<T> work) {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(deadline, "deadline");
        Objects.requireNonNull(work, "work");
        if (closed) {
            throw closedError();
        }
        refuseWhenAlreadyOver(host, deadline);
        HostSlot slot = slots.computeIfAbsent(host, endpoint -> new HostSlot(endpoint, dialer, dialTimeout, workers));
        if (closed) {
            // close() may have run between the check above and the slot's creation and missed it.
            slot.close();
            throw closedError();
        }
        HostLink link = slot.acquire(deadline);
        return runOnLink(host, slot, link, deadline, work);
    }

    /**
     * Closes every cached link (gracefully, on worker threads, so a hung daemon cannot hold up the
     * caller) and refuses calls from now on; calls in flight run to their end or deadline.
     */
    @Override
    public void close() {
        closed = true;
        slots.values().forEach(HostSlot::close);
        workers.shutdown();
    }

    /** The error of a call made after {@link #close()}: a programming error of the caller. */
    static IllegalStateException closedError() {
        return new IllegalStateException("these host connections were closed; the provider that owns them is shut down");
    }

    private static void refuseWhenAlreadyOver(HostEndpoint host, Deadline deadline) {
        if (Thread.currentThread().isInterrupted()) {
            throw new HostCallException(HostCallException.Reason.INTERRUPTED, host.name(),
                    "interrupted before the call to host " + host.name() + " started", null);
        }
        if (deadline.isExpired()) {
            throw new HostCallException(HostCallException.Reason.DEADLINE_EXCEEDED, host.name(),
                    "the deadline had passed before the call to host " + host.name() + " started", null);
        }
    }

    private <T> T runOnLink(HostEndpoint host, HostSlot slot, HostLink link, Deadline deadline, HostCall<T> work) {
        CompletableFuture<T> outcome = new CompletableFuture<>();
        try {
            workers.execute(() -> {
                try {
                    outcome.complete(work.apply(link.libvirt()));
                } catch (Throwable failure) {
                    outcome.completeExceptionally(failure);
                }
            });
        } catch (RejectedExecutionException e) {
            throw closedError();
        }
        try {
            return outcome.get(deadline.remaining().toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            slot.drop(link, "deadline passed");
            throw new HostCallException(HostCallException.Reason.DEADLINE_EXCEEDED, host.name(),
                    "the deadline passed while host " + host.name() + " was still working on the call; its link was"
                            + " closed so the call stops, and the next call reconnects", null);
        } catch (InterruptedException e) {
            slot.drop(link, "caller interrupted");
            Thread.currentThread().interrupt();
            throw new HostCallException(HostCallException.Reason.INTERRUPTED, host.name(),
                    "interrupted while host " + host.name() + " was working on the call; its link was closed so the"
                            + " call stops, and the next call reconnects", e);
        } catch (ExecutionException e) {
            throw failureOfWork(host, slot, link, e.getCause());
        }
    }

    /** What the caller gets when the work threw {@code failure}; drops the link when it broke. */
    private static RuntimeException failureOfWork(HostEndpoint host, HostSlot slot, HostLink link, Throwable failure) {
        if (!LinkFailures.breaksLink(failure)) {
            // Thrown as it is: the caller classifies libvirt errors and its own verdicts.
            return (RuntimeException) failure;
        }
        slot.drop(link, failure.toString());
        if (failure instanceof Error error) {
            throw error;
        }
        return new HostCallException(HostCallException.Reason.UNREACHABLE, host.name(),
                "the link to host " + host.name() + " failed during the call (" + failure.getMessage()
                        + "); it was closed and the next call reconnects", failure);
    }
}

package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.host.HostCall;
import dev.egressproxies.kvm.common.host.HostDialer;
import dev.egressproxies.kvm.common.host.HostEndpoint;
import dev.egressproxies.kvm.common.host.HostLink;
import dev.egressproxies.kvm.common.host.HostShell;
import dev.egressproxies.kvm.common.libvirt.LibvirtException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One provider entry's links to its hosts: dialled lazily, cached, and redialled once no longer alive. */
public final class HostPool implements AutoCloseable {
    /** The usual SSH handshake limit. */
    public static final Duration DEFAULT_DIAL_TIMEOUT = Duration.ofSeconds(30);
    private static final Logger LOG = LoggerFactory.getLogger(HostPool.class);
    /** Grace before cutting the link, so work watching the same deadline reports what was slow itself. */
    private static final long SETTLE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(1);

    private final HostDialer dialer;
    private final Duration dialTimeout;
    private final Optional<Duration> budget;
    private final ThreadPoolExecutor workers;
    private final ConcurrentMap<HostEndpoint, Slot> slots = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** Calls end at the caller's deadline or, when present and earlier, after {@code budget}. */
    public HostPool(HostDialer dialer, Duration dialTimeout, Optional<Duration> budget) {
        this.dialer = Objects.requireNonNull(dialer, "dialer");
        this.dialTimeout = Objects.requireNonNull(dialTimeout, "dialTimeout");
        this.budget = Objects.requireNonNull(budget, "budget");
        if (dialTimeout.isNegative() || dialTimeout.isZero()) {
            throw new IllegalArgumentException("dial timeout " + dialTimeout + " must be positive");
        }
        // A thread cut off by its deadline stays in the native call, so new work gets a new thread, never a queue.
        this.workers = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
                daemonThreads("egress-host-call-"));
    }

    /** A pool with {@link #DEFAULT_DIAL_TIMEOUT} and no per-call budget. */
    public HostPool(HostDialer dialer) {
        this(dialer, DEFAULT_DIAL_TIMEOUT, Optional.empty());
    }

    /**
     * Runs {@code work} on the host's libvirt and returns what it returns; every failure is a
     * {@link ProviderException} (an interrupt's flag is set again), IllegalStateException once closed.
     */
    public <T> T call(HostSettings host, Call call, HostCall<T> work) {
        Objects.requireNonNull(work, "work");
        if (closed) {
            throw closedError();
        }
        call.checkDeadline();
        Call bounded = budget.map(limit -> call.withDeadline(call.deadline().within(limit))).orElse(call);
        Slot slot = slots.computeIfAbsent(host.endpoint(), Slot::new);
        if (closed) {
            // close() may have run between the check above and the slot's creation and missed it.
            slot.close();
            throw closedError();
        }
        HostLink link = slot.acquire(host, call, bounded);
        CompletableFuture<T> outcome;
        try {
            outcome = CompletableFuture.supplyAsync(() -> work.apply(link.libvirt()), workers);
        } catch (RejectedExecutionException e) {
            throw closedError();
        }
        try {
            return outcome.get(bounded.deadline().remaining().toNanos() + SETTLE_NANOS, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            slot.drop(link, "deadline passed");
            throw deadlinePassed(host, call, bounded, "the call did not finish; its link was closed so the call stops,"
                    + " and the next call reconnects");
        } catch (InterruptedException e) {
            slot.drop(link, "caller interrupted");
            throw call.interrupted(e);
        } catch (ExecutionException e) {
            throw failureOfWork(e.getCause(), host, call, slot, link);
        }
    }

    /**
     * Starts dialling {@code host} unless a link is cached or being dialled, without waiting; the
     * next {@link #call} waits for that dial, or makes it again and reports its failure.
     */
    public void dialAhead(HostSettings host, Call call) {
        openSlot(host).dialAhead(call);
    }

    /** How the link to {@code host} reaches its daemon, for {@code check}; empty when the dialer does not say. */
    public String route(HostSettings host, Call call) {
        return openSlot(host).acquire(host, call, call).route();
    }

    /**
     * Runs commands on {@code host} itself, through its link's SSH session (dialled if need be);
     * PERMANENT when the link is no SSH session, such as a socket on this machine.
     */
    public HostShell shell(HostSettings host, Call call) {
        call.checkDeadline();
        HostLink link = openSlot(host).acquire(host, call, call);
        return link.shell().orElseThrow(() -> call.permanent("host '" + host.name() + "' is reached through "
                + link.route() + ", not over SSH, so it cannot fetch images itself; set fetch: client for it"));
    }

    /**
     * Closes the cached links gracefully and refuses calls from now on; calls in flight run on.
     * Waits a little for the workers: a thread left inside libvirt or SSH delays the JVM's exit.
     */
    @Override
    public void close() {
        closed = true;
        slots.values().forEach(Slot::close);
        workers.shutdown();
        try {
            workers.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Daemon threads named {@code PREFIX1}, {@code PREFIX2}, ...: they never keep the JVM from exiting. */
    static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return work -> {
            Thread thread = new Thread(work, prefix + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    private Slot openSlot(HostSettings host) {
        if (closed) {
            throw closedError();
        }
        return slots.computeIfAbsent(host.endpoint(), Slot::new);
    }

    private static IllegalStateException closedError() {
        return new IllegalStateException("this host pool was closed; the provider that owns it is shut down");
    }

    /** The deadline error; one that only the budget cut off names the budget. */
    private ProviderException deadlinePassed(HostSettings host, Call call, Call bounded, String what) {
        if (bounded != call && !call.deadline().isExpired()) {
            Duration limit = budget.orElseThrow();
            String shown = limit.toMillis() % 1000 == 0 ? limit.toSeconds() + "s" : limit.toMillis() + "ms";
            return call.transientFailure(where(host) + " did not finish the"
                    + " call within its budget of " + shown + " (rpcBudget): " + what + "; retry, and if it repeats"
                    + " look at libvirtd there", null);
        }
        return call.deadlineExceeded("waiting for " + where(host) + ": " + what, null);
    }

    /** What the caller gets when the work threw {@code failure}; drops the link unless it is an answer. */
    private static ProviderException failureOfWork(Throwable failure, HostSettings host, Call call, Slot slot,
                                                   HostLink link) {
        if (failure instanceof ProviderException verdict) {
            return verdict;
        }
        if (failure instanceof LibvirtException answer && !answer.isTransportFailure()) {
            return libvirtFailure(answer, host, call);
        }
        slot.drop(link, failure.toString());
        if (failure instanceof Error error) {
            throw error;
        }
        if (failure instanceof LibvirtException broken) {
            return libvirtFailure(broken, host, call);
        }
        return call.transientFailure("unexpected failure while talking to " + where(host) + ": " + failure
                + "; the link was closed and the next call reconnects; retry, and report it if it repeats", failure);
    }

    /** libvirt's answer as the contract's error: NOT_FOUND is for get only (elsewhere a vanishing domain is a race). */
    static ProviderException libvirtFailure(LibvirtException libvirt, HostSettings host, Call call) {
        ErrorKind kind = libvirt.kind();
        if (kind == ErrorKind.NOT_FOUND && call.operation() != Operation.GET) {
            kind = ErrorKind.TRANSIENT;
        }
        String said = "libvirt on host '" + host.name() + "' failed: " + libvirt.getMessage() + " (error "
                + libvirt.code() + ", " + libvirt.rawCode() + ")";
        String advice = switch (kind) {
            case PERMANENT -> "; retrying cannot help: fix the request or the settings of host '" + host.name()
                    + "' in provider entry '" + call.entry() + "'";
            case QUOTA_EXCEEDED -> "; free memory or disk on host '" + host.name()
                    + "' or use a smaller machine type, then retry";
            case NOT_FOUND -> "; it was deleted or never created";
            case TRANSIENT -> "; retry, and if it repeats look at libvirtd's log on host '" + host.name() + "'";
        };
        return call.failure(kind, said + advice, libvirt);
    }

    /** One host's cached link and dial in progress, under a lock of its own: hosts never wait for each other. */
    private final class Slot {
        private final HostEndpoint endpoint;
        private HostLink link;
        private CompletableFuture<HostLink> dial;
        private boolean slotClosed;

        Slot(HostEndpoint endpoint) {
            this.endpoint = endpoint;
        }

        HostLink acquire(HostSettings host, Call call, Call bounded) {
            CompletableFuture<HostLink> pending;
            HostLink lost = null;
            synchronized (this) {
                if (slotClosed) {
                    throw closedError();
                }
                if (link != null) {
                    if (link.isAlive()) {
                        return link;
                    }
                    lost = link;
                    link = null;
                }
                pending = dialInProgress(call);
            }
            if (lost != null) {
                LOG.debug("libvirt link to host {} lost, redialling", endpoint.name());
                discard(lost);
            }
            try {
                return pending.get(bounded.deadline().remaining().toNanos(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                throw deadlinePassed(host, call, bounded, "connecting took longer; the"
                        + " connection attempt goes on for later calls (it is given up after "
                        + dialTimeout.toSeconds() + " s)");
            } catch (InterruptedException e) {
                throw call.interrupted(e);
            } catch (ExecutionException e) {
                throw dialFailure(e.getCause(), host, call);
            }
        }

        synchronized void dialAhead(Call call) {
            if (!slotClosed && link == null) {
                dialInProgress(call);
            }
        }

        /** The dial in progress, started now on a worker thread if there is none; called with the lock held. */
        private CompletableFuture<HostLink> dialInProgress(Call call) {
            if (dial == null) {
                Call dialCall = call.withDeadline(Deadline.after(dialTimeout));
                CompletableFuture<HostLink> attempt = new CompletableFuture<>();
                try {
                    workers.execute(() -> runDial(attempt, dialCall));
                } catch (RejectedExecutionException e) {
                    throw closedError();
                }
                dial = attempt;
            }
            return dial;
        }

        /** Cuts {@code failed} and forgets it if it is still the cached link, leaving a successor alone. */
        void drop(HostLink failed, String reason) {
            synchronized (this) {
                if (link == failed) {
                    link = null;
                }
            }
            LOG.debug("libvirt link to host {} dropped: {}", endpoint.name(), reason);
            discard(failed);
        }

        void close() {
            HostLink current;
            synchronized (this) {
                slotClosed = true;
                current = link;
                link = null;
            }
            if (current != null) {
                // A graceful close says goodbye to the daemon, which may hang; the closing thread must not.
                try {
                    workers.execute(current::close);
                } catch (RejectedExecutionException e) {
                    current.close();
                }
            }
        }

        private void runDial(CompletableFuture<HostLink> attempt, Call dialCall) {
            long started = System.nanoTime();
            HostLink opened;
            try {
                opened = Objects.requireNonNull(dialer.dial(endpoint, dialCall), "the dialer returned no link");
            } catch (Throwable failure) {
                finishDial(attempt, null);
                LOG.debug("dialling host {} failed after {} ms: {}", endpoint.name(), millisSince(started),
                        failure.toString());
                attempt.completeExceptionally(failure);
                return;
            }
            if (!finishDial(attempt, opened)) {
                discard(opened);
                attempt.completeExceptionally(closedError());
                return;
            }
            LOG.debug("libvirt link to host {} open after {} ms", endpoint.name(), millisSince(started));
            attempt.complete(opened);
        }

        /** Records the end of a dial before its waiters wake; false when the pool closed meanwhile. */
        private synchronized boolean finishDial(CompletableFuture<HostLink> attempt, HostLink opened) {
            if (dial == attempt) {
                dial = null;
            }
            if (opened == null || slotClosed) {
                return false;
            }
            link = opened;
            return true;
        }
    }

    /** A failure of its own for each waiter of a dial, in the waiter's call. */
    private static RuntimeException dialFailure(Throwable failure, HostSettings host, Call call) {
        String where = where(host);
        if (failure instanceof IllegalStateException closing) {
            return closing;
        }
        if (failure instanceof ProviderException dialError && dialError.kind() == ErrorKind.PERMANENT) {
            return call.failure(ErrorKind.PERMANENT, "the connection to " + where + " cannot work as configured: "
                    + dialError.detail() + "; fix the SSH settings of provider entry '" + call.entry()
                    + "' (sshKeyFile, knownHostsFile, hosts[].user)", dialError);
        }
        String said = failure instanceof ProviderException dialError ? dialError.detail()
                : "connecting failed: " + failure;
        return call.transientFailure(where + " could not be reached or the connection broke: " + said
                + "; retry, and if it persists check that sshd and libvirtd run there", failure);
    }

    /** {@code host 'NAME' (USER@ADDRESS:PORT)}. */
    private static String where(HostSettings host) {
        return "host '" + host.name() + "' (" + host.destination() + ")";
    }

    /** Cuts a failed link and releases it; it is useless either way, so failures here are not the caller's. */
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

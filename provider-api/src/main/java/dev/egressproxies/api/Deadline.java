package dev.egressproxies.api;

import java.time.Duration;

/**
 * A point in time by which a provider call must return, measured on the monotonic clock.
 *
 * <p>Every {@link Provider} call takes one. When it passes, the call gives up whatever it is
 * waiting on and throws a {@link ErrorKind#TRANSIENT} {@link ProviderException} within about a
 * second, even when the backend itself hangs. {@link #none()} is a deadline that never passes;
 * callers should prefer a bounded one.
 *
 * @since 1.0.0
 */
public final class Deadline {
    private static final Deadline NONE = new Deadline(0, false);
    /** What {@link #remaining()} reports for an unbounded deadline: long enough to never matter. */
    private static final Duration FOREVER = Duration.ofDays(365);

    private final long expiresAtNanos;
    private final boolean bounded;

    private Deadline(long expiresAtNanos, boolean bounded) {
        this.expiresAtNanos = expiresAtNanos;
        this.bounded = bounded;
    }

    /**
     * A deadline that passes {@code timeout} from now.
     *
     * @since 1.0.0
     */
    public static Deadline after(Duration timeout) {
        long nanos = saturatedNanos(timeout);
        return new Deadline(System.nanoTime() + nanos, true);
    }

    /**
     * A deadline that never passes.
     *
     * @since 1.0.0
     */
    public static Deadline none() {
        return NONE;
    }

    /**
     * Whether this deadline can pass at all.
     *
     * @since 1.0.0
     */
    public boolean isBounded() {
        return bounded;
    }

    /**
     * Whether this deadline has passed.
     *
     * @since 1.0.0
     */
    public boolean isExpired() {
        return bounded && expiresAtNanos - System.nanoTime() <= 0;
    }

    /**
     * The time left, zero once passed; a year for {@link #none()}.
     *
     * @since 1.0.0
     */
    public Duration remaining() {
        if (!bounded) {
            return FOREVER;
        }
        long left = expiresAtNanos - System.nanoTime();
        return left <= 0 ? Duration.ZERO : Duration.ofNanos(left);
    }

    /**
     * The earlier of this deadline and one {@code budget} from now; how a per-step time limit is
     * combined with the caller's deadline.
     *
     * @since 1.0.0
     */
    public Deadline within(Duration budget) {
        Deadline step = after(budget);
        if (!bounded) {
            return step;
        }
        return step.expiresAtNanos - expiresAtNanos < 0 ? step : this;
    }

    /**
     * Throws the TRANSIENT error of the contract when the deadline has passed or the current
     * thread was interrupted; a cheap check for the points between blocking steps.
     *
     * @since 1.0.0
     */
    public void check(Operation operation, String entry, String instanceId) {
        if (Thread.currentThread().isInterrupted()) {
            throw ProviderException.interrupted(operation, entry, instanceId, new InterruptedException());
        }
        if (isExpired()) {
            throw ProviderException.deadlineExceeded(operation, entry, instanceId);
        }
    }

    private static long saturatedNanos(Duration timeout) {
        if (timeout.isNegative()) {
            return 0;
        }
        // Capped so that adding it to System.nanoTime() can never overflow.
        return timeout.compareTo(FOREVER) > 0 ? FOREVER.toNanos() : timeout.toNanos();
    }

    @Override
    public String toString() {
        return bounded ? "Deadline[in " + remaining() + "]" : "Deadline[none]";
    }
}

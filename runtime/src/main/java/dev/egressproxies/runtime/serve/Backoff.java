package dev.egressproxies.runtime.serve;

import java.time.Duration;

/**
 * How long a proxy waits before its next attempt after consecutive failures: {@code base} doubled
 * per failure, never more than {@code cap}. A success resets the count.
 *
 * @param base the wait after the first failure
 * @param cap  the longest wait
 */
public record Backoff(Duration base, Duration cap) {
    /** The defaults: 5 s, doubling to at most 5 min. */
    public static final Backoff DEFAULT = new Backoff(Duration.ofSeconds(5), Duration.ofMinutes(5));

    /** Checks that both are positive and the cap is not below the base. */
    public Backoff {
        if (base.isNegative() || base.isZero() || cap.compareTo(base) < 0) {
            throw new IllegalArgumentException("backoff needs 0 < base <= cap, got base " + base + ", cap " + cap);
        }
    }

    /** The default backoff with its longest wait set to {@code cap} (its first wait too, when shorter). */
    public static Backoff upTo(Duration cap) {
        return new Backoff(DEFAULT.base().compareTo(cap) < 0 ? DEFAULT.base() : cap, cap);
    }

    /** The wait after {@code failures} consecutive failures (at least one). */
    public Duration after(int failures) {
        int doublings = Math.min(Math.max(failures, 1) - 1, 30);
        Duration wait = base.multipliedBy(1L << doublings);
        return wait.compareTo(cap) > 0 ? cap : wait;
    }
}

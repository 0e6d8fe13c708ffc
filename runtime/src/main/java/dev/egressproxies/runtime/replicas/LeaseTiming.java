package dev.egressproxies.runtime.replicas;

import dev.egressproxies.runtime.config.ConfigException;
import java.time.Duration;

/**
 * The timing of leadership, as Kubernetes' leader election has it: a replica renews its lease
 * every {@code retryPeriod}; when it has not renewed it for {@code renewDeadline}, it stops acting;
 * etcd ends the lease {@code leaseDuration} after the last renewal, and only then may another
 * replica lead. The difference between the last two is the time an interrupted operation has to
 * return before a successor may start.
 *
 * @param leaseDuration the lease's time to live (etcd counts it in whole seconds)
 * @param renewDeadline how long a replica acts without a renewal
 * @param retryPeriod   how often it renews, and how often it looks for entries without a leader
 */
public record LeaseTiming(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {
    /** controller-runtime's defaults: 15 s, 10 s and 2 s. */
    public static final LeaseTiming DEFAULT = new LeaseTiming(Duration.ofSeconds(15), Duration.ofSeconds(10),
            Duration.ofSeconds(2));

    /** Checks that the three fit together. */
    public LeaseTiming {
        if (leaseDuration.toMillis() % 1000 != 0 || leaseDuration.toSeconds() < 2) {
            throw new ConfigException("--lease-duration " + leaseDuration.toSeconds() + "s: give whole seconds, 2s or"
                    + " more (etcd counts leases in seconds); the default is 15s");
        }
        if (renewDeadline.compareTo(leaseDuration) >= 0) {
            throw new ConfigException("--renew-deadline (" + renewDeadline.toMillis() + " ms) must be shorter than"
                    + " --lease-duration (" + leaseDuration.toMillis() + " ms): a replica must stop acting before"
                    + " its lease can end and another replica take over");
        }
        if (retryPeriod.isNegative() || retryPeriod.isZero() || retryPeriod.compareTo(renewDeadline) >= 0) {
            throw new ConfigException("--retry-period (" + retryPeriod.toMillis() + " ms) must be positive and"
                    + " shorter than --renew-deadline (" + renewDeadline.toMillis() + " ms), so that a replica renews"
                    + " several times before its deadline");
        }
    }
}

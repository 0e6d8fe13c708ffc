package dev.egressproxies.fake;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * What the {@link FaultInjector} decided for one call: whether it hangs, how long it waits and
 * which error, if any, it throws before doing its work.
 *
 * @param hang    whether the call blocks until its deadline passes or its thread is interrupted
 * @param latency how long the call waits
 * @param error   the error the call throws, or {@code null}
 */
record FaultAction(boolean hang, Duration latency, ErrorKind error) {
    /** A call that runs as if no faults were configured. */
    static final FaultAction NONE = new FaultAction(false, Duration.ZERO, null);

    /** Longer than any test or demo waits; keeps the nanosecond arithmetic from overflowing. */
    private static final Duration LONGEST_WAIT = Duration.ofDays(365);

    /**
     * Hangs, waits and fails as decided.
     *
     * @throws ProviderException TRANSIENT when the deadline passes or the thread is interrupted
     *                           while waiting (the interrupt flag stays set), else the injected error
     */
    void perform(Operation operation, String entry, String instanceId, Deadline deadline) {
        if (hang) {
            waitFor(LONGEST_WAIT, operation, entry, instanceId, deadline);
            // Reached only if a deadline lies more than a year ahead; still a hang to the caller.
            throw ProviderException.deadlineExceeded(operation, entry, instanceId);
        }
        if (!latency.isZero()) {
            waitFor(latency, operation, entry, instanceId, deadline);
        }
        if (error != null) {
            throw new ProviderException(error, operation, entry, instanceId, "injected fault: this " + operation
                    + " was set to fail with " + error + " by fault injection; clear it with FaultInjector.clear()"
                    + " or remove faults." + operation + " from the settings of provider entry '" + entry + "'");
        }
    }

    /** Sleeps for {@code duration}, but no longer than the deadline allows and not past an interrupt. */
    private static void waitFor(Duration duration, Operation operation, String entry, String instanceId,
                                Deadline deadline) {
        long end = System.nanoTime() + min(duration, LONGEST_WAIT).toNanos();
        while (true) {
            deadline.check(operation, entry, instanceId);
            long left = end - System.nanoTime();
            if (left <= 0) {
                return;
            }
            try {
                TimeUnit.NANOSECONDS.sleep(Math.min(left, deadline.remaining().toNanos()));
            } catch (InterruptedException interrupted) {
                throw ProviderException.interrupted(operation, entry, instanceId, interrupted);
            }
        }
    }

    private static Duration min(Duration first, Duration second) {
        return first.compareTo(second) <= 0 ? first : second;
    }
}

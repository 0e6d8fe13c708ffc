package dev.egressproxies.kvm2;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.instance.Call;
import dev.egressproxies.kvm.common.instance.HostCaller;
import dev.egressproxies.kvm.common.instance.Pools;
import dev.egressproxies.kvm.common.instance.Volumes;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The removal of a base volume a failed fetch left, over the pooled connection. It runs without
 * the caller's cancellation (the fetch may have failed because the caller's deadline passed or its
 * thread was interrupted) under a fresh, short deadline of its own: the caller's deadline plus a
 * {@linkplain #GRACE grace} of one second, and never more than the per-call budget, so a caller
 * still returns within about a second of its deadline when the host hangs. The interrupt flag is
 * restored after. A removal that fails is logged and added to the failure as suppressed, never
 * thrown: the next attempt finds the base without a marker and removes it then.
 */
final class BaseImageDiscard {
    private static final Logger LOG = LoggerFactory.getLogger(BaseImageDiscard.class);
    /** How long past the caller's deadline the removal may take. */
    static final Duration GRACE = Duration.ofSeconds(1);

    private final HostCaller hosts;
    private final Duration budget;

    BaseImageDiscard(HostCaller hosts, Duration budget) {
        this.hosts = hosts;
        this.budget = budget;
    }

    /** Removes {@code volume} from the host's pool if it is there, best effort. */
    void discard(HostSettings host, String volume, Call call, RuntimeException failure) {
        boolean interrupted = Thread.interrupted();
        try {
            hosts.call(host, call.withDeadline(Deadline.after(allowed(call.deadline()))),
                    libvirt -> Volumes.deleteIfPresent(libvirt, Pools.require(libvirt, host, call), volume));
        } catch (RuntimeException cleanup) {
            LOG.info("could not remove the incomplete base image volume {} on host {} now; the next fetch removes it:"
                    + " {}", volume, host.name(), cleanup.toString());
            failure.addSuppressed(cleanup);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The caller's time left plus the grace, at most the budget. */
    private Duration allowed(Deadline caller) {
        Duration allowed = caller.remaining().plus(GRACE);
        return allowed.compareTo(budget) < 0 ? allowed : budget;
    }
}

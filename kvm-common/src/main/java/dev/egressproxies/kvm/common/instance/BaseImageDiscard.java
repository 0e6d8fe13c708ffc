package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.host.HostCall;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The removal of a base volume a failed fetch left, in a host call of its own over the pooled connection. */
public final class BaseImageDiscard {
    private static final Logger LOG = LoggerFactory.getLogger(BaseImageDiscard.class);
    /** How long past the caller's deadline the removal may take. */
    public static final Duration GRACE = Duration.ofSeconds(1);

    private final HostPool hosts;
    private final Optional<Duration> budget;

    /** Removes volumes through {@code hosts}, each removal given at most {@code budget} (the per-call budget). */
    public BaseImageDiscard(HostPool hosts, Duration budget) {
        this(hosts, Optional.of(budget));
    }

    /** Removes volumes through {@code hosts}, for a backend without a per-call budget. */
    public BaseImageDiscard(HostPool hosts) {
        this(hosts, Optional.empty());
    }

    private BaseImageDiscard(HostPool hosts, Optional<Duration> budget) {
        this.hosts = Objects.requireNonNull(hosts, "hosts");
        this.budget = Objects.requireNonNull(budget, "budget");
    }

    /** Removes {@code volume} from the host's pool if it is there, best effort. */
    public void discard(HostSettings host, String volume, Call call, RuntimeException failure) {
        try {
            cleanUp(host, call,
                    libvirt -> Volumes.deleteIfPresent(libvirt, Pools.require(libvirt, host, call), volume));
        } catch (RuntimeException cleanup) {
            LOG.info("could not remove the incomplete base image volume {} on host {} now; the next fetch removes it:"
                    + " {}", volume, host.name(), cleanup.toString());
            failure.addSuppressed(cleanup);
        }
    }

    /** Runs clean-up {@code work} in a host call of its own, ignoring the caller's interrupt, until {@link #GRACE}. */
    public <T> T cleanUp(HostSettings host, Call call, HostCall<T> work) {
        boolean interrupted = Thread.interrupted();
        try {
            return hosts.call(host, call.withDeadline(Deadline.after(allowed(call.deadline()))), work);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private Duration allowed(Deadline caller) {
        Duration allowed = caller.remaining().plus(GRACE);
        return budget.filter(limit -> limit.compareTo(allowed) < 0).orElse(allowed);
    }
}

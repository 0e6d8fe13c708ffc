package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.host.HostCall;
import dev.egressproxies.kvm.common.host.HostCallException;
import dev.egressproxies.kvm.common.host.HostConnections;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The gateway from a backend's steps to a configured host's libvirt: runs work through the entry's
 * {@link HostConnections} and turns whatever fails into the contract's error for the call.
 *
 * <p>Optionally each host call has a budget of its own (a per-RPC time limit): it then ends at the
 * earlier of the caller's deadline and the budget, and a call cut off by the budget alone is
 * TRANSIENT with a message that names the budget.
 */
public final class HostCaller {
    private final HostConnections connections;
    private final Optional<Duration> budget;

    /** Calls through {@code connections}, each bounded by the caller's deadline only. */
    public HostCaller(HostConnections connections) {
        this(connections, Optional.empty());
    }

    /**
     * Calls through {@code connections}, each bounded by the caller's deadline and, when present, by
     * {@code budget}.
     */
    public HostCaller(HostConnections connections, Optional<Duration> budget) {
        this.connections = Objects.requireNonNull(connections, "connections");
        this.budget = Objects.requireNonNull(budget, "budget");
    }

    /**
     * Runs {@code work} on {@code host}'s libvirt, after checking the deadline.
     *
     * @throws dev.egressproxies.api.ProviderException for every failure, see {@link FailureTranslator}
     */
    public <T> T call(HostSettings host, Call call, HostCall<T> work) {
        call.checkDeadline();
        Deadline bounded = budget.map(call.deadline()::within).orElse(call.deadline());
        try {
            return connections.call(host.endpoint(), bounded, work);
        } catch (HostCallException link) {
            // Deadline.within returns the caller's own deadline when that is the earlier one.
            boolean budgetBound = bounded != call.deadline();
            if (link.reason() == HostCallException.Reason.DEADLINE_EXCEEDED && budgetBound
                    && !call.deadline().isExpired()) {
                throw call.transientFailure("host '" + host.name() + "' (" + host.destination() + ") did not finish"
                        + " the call within its budget of " + text(budget.get()) + " (rpcBudget): "
                        + link.getMessage() + "; retry, and if it repeats look at libvirtd there", link);
            }
            throw FailureTranslator.translate(link, call, host);
        } catch (RuntimeException failure) {
            throw FailureTranslator.translate(failure, call, host);
        }
    }

    private static String text(Duration duration) {
        return duration.toMillis() % 1000 == 0 ? duration.toSeconds() + "s" : duration.toMillis() + "ms";
    }

    /** Closes every connection. */
    public void close() {
        connections.close();
    }
}

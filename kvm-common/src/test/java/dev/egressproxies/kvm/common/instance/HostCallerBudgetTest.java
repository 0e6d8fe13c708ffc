package dev.egressproxies.kvm.common.instance;

import static dev.egressproxies.kvm.common.testing.Requests.catchProviderException;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.host.HostCall;
import dev.egressproxies.kvm.common.host.HostCallException;
import dev.egressproxies.kvm.common.host.HostConnections;
import dev.egressproxies.kvm.common.host.HostEndpoint;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A host caller with a per-call budget: each call ends at the earlier of the caller's deadline and
 * the budget, and a call the budget cut off says so.
 */
class HostCallerBudgetTest {
    private static final HostSettings HOST = HostSettings.of("host-1", "10.0.0.5", "br0");

    /** Connections that record the deadline they were given and report it passed. */
    private static final class ExpiringConnections implements HostConnections {
        Deadline given;

        @Override
        public <T> T call(HostEndpoint host, Deadline deadline, HostCall<T> work) {
            given = deadline;
            throw new HostCallException(HostCallException.Reason.DEADLINE_EXCEEDED, host.name(), "too slow", null);
        }

        @Override
        public void close() {
        }
    }

    @Test
    void theBudgetBoundsEachCallAndACallItCutsOffNamesIt() {
        ExpiringConnections connections = new ExpiringConnections();
        HostCaller hosts = new HostCaller(connections, Optional.of(Duration.ofMillis(1500)));
        Call call = new Call("e", Operation.GET, "host-1/p", Deadline.after(Duration.ofMinutes(5)));

        ProviderException error = catchProviderException(() -> hosts.call(HOST, call, libvirt -> null));

        assertThat(connections.given.remaining()).isLessThanOrEqualTo(Duration.ofMillis(1500));
        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(error.detail()).contains("host 'host-1' (root@10.0.0.5:22) did not finish the call within its"
                + " budget of 1500ms (rpcBudget)");
    }

    @Test
    void aCallerDeadlineShorterThanTheBudgetIsTheOneThatCounts() {
        ExpiringConnections connections = new ExpiringConnections();
        HostCaller hosts = new HostCaller(connections, Optional.of(Duration.ofMinutes(2)));
        Deadline caller = Deadline.after(Duration.ofMillis(50));
        Call call = new Call("e", Operation.GET, "host-1/p", caller);

        ProviderException error = catchProviderException(() -> hosts.call(HOST, call, libvirt -> {
            throw new AssertionError("not called");
        }));

        assertThat(connections.given).isSameAs(caller);
        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(error.detail()).startsWith("deadline exceeded while waiting for host 'host-1'")
                .doesNotContain("rpcBudget");
    }
}

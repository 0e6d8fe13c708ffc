package dev.egressproxies.kvm;

import dev.egressproxies.kvm.common.host.HostCall;
import dev.egressproxies.kvm.common.host.HostConnections;
import dev.egressproxies.kvm.config.KvmHost;

/**
 * The gateway from the provider's steps to a configured host's libvirt: runs work through the
 * entry's {@link HostConnections} and turns whatever fails into the contract's error for the call.
 */
final class HostCaller {
    private final HostConnections connections;

    HostCaller(HostConnections connections) {
        this.connections = connections;
    }

    /**
     * Runs {@code work} on {@code host}'s libvirt, after checking the deadline.
     *
     * @throws dev.egressproxies.api.ProviderException for every failure, see {@link FailureTranslator}
     */
    <T> T call(KvmHost host, Call call, HostCall<T> work) {
        call.checkDeadline();
        try {
            return connections.call(host.endpoint(), call.deadline(), work);
        } catch (RuntimeException failure) {
            throw FailureTranslator.translate(failure, call, host);
        }
    }

    /** Closes every connection. */
    void close() {
        connections.close();
    }
}

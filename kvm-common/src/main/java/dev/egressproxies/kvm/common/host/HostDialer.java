package dev.egressproxies.kvm.common.host;

import dev.egressproxies.api.Deadline;

/**
 * Opens links to hypervisors: the SSH tunnel in production, {@link
 * dev.egressproxies.kvm.common.local.LocalSocketDialer} on the hypervisor itself, hand-written
 * fakes in tests. {@link CachingHostConnections} calls it on a worker thread, at most once at a
 * time per host.
 */
@FunctionalInterface
public interface HostDialer {

    /**
     * Opens a link to {@code host}, giving up when {@code deadline} passes (a dial that hangs past
     * it pins a worker thread and every caller waiting for that host).
     *
     * @throws HostCallException {@link HostCallException.Reason#UNREACHABLE} when the host could not
     *                           be reached and a later attempt may succeed, {@link
     *                           HostCallException.Reason#MISCONFIGURED} when the configuration must
     *                           change first (a key that does not parse, a host key that does not
     *                           match); any other exception counts as UNREACHABLE
     */
    HostLink dial(HostEndpoint host, Deadline deadline);
}

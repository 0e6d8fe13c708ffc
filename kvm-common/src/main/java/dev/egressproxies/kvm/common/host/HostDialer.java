package dev.egressproxies.kvm.common.host;

import dev.egressproxies.kvm.common.Call;


/**
 * Opens links to hypervisors: the SSH tunnel in production,
 * {@link dev.egressproxies.kvm.common.local.LocalSocketDialer} on the hypervisor itself, fakes in
 * tests. The host pool calls it on a worker thread, at most once at a time per host.
 */
@FunctionalInterface
public interface HostDialer {

    /**
     * Opens a link to {@code host}, giving up when the deadline of {@code dial} passes (a dial that
     * hangs past it pins every caller waiting for that host).
     *
     * @throws dev.egressproxies.api.ProviderException TRANSIENT when a later attempt may succeed,
     *     PERMANENT when the configuration must change first (a key that does not parse, a host key
     *     that does not match).
     */
    HostLink dial(HostEndpoint host, Call dial);
}

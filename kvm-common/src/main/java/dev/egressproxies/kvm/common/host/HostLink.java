package dev.egressproxies.kvm.common.host;

import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import java.util.Optional;

/**
 * One open connection to a hypervisor's libvirt, as a {@link HostDialer} made it: the adapter to
 * call, and the means to tell whether the connection still works and to cut it.
 */
public interface HostLink extends AutoCloseable {

    /** The libvirt adapter on this link. */
    LibvirtHost libvirt();

    /** How the link reaches the daemon, for {@code check}; empty when there is nothing to say. */
    default String route() {
        return "";
    }

    /** Runs commands on the host itself, when the link rides on an SSH session; empty otherwise. */
    default Optional<HostShell> shell() {
        return Optional.empty();
    }

    /**
     * Whether the link still works as far as can be told without asking the host. Must be cheap and
     * must never block: the pool asks while holding the host's lock.
     */
    boolean isAlive();

    /** Cuts the transport at once, so native calls blocked on it return with an error. */
    void abort();

    /**
     * Releases the link once no call is inside it: at once when idle, otherwise when the last call
     * returns. Does not wait for calls in flight.
     */
    @Override
    void close();
}

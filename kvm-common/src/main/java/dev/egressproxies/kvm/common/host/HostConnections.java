package dev.egressproxies.kvm.common.host;

import dev.egressproxies.api.Deadline;

/**
 * The connections of one provider entry to its hosts: one cached connection per host, dialled
 * lazily and redialled after loss. Dials to different hosts never block each other; concurrent
 * callers for one host share one dial.
 *
 * <p>A call whose deadline passes, or whose thread is interrupted, closes that host's link so the
 * blocked native call returns, and fails promptly with {@link HostCallException}; the next call
 * redials. A transport failure drops the connection too. A {@link
 * dev.egressproxies.kvm.common.libvirt.LibvirtException} that is not a transport failure, and any
 * verdict the work itself throws (a {@link dev.egressproxies.api.ProviderException}, an
 * {@link IllegalArgumentException}), leaves the connection alone and is rethrown as is.
 */
public interface HostConnections extends AutoCloseable {

    /**
     * Runs work against the host's libvirt.
     *
     * @throws HostCallException when the link failed, the deadline passed or the thread was
     *                           interrupted
     * @throws dev.egressproxies.kvm.common.libvirt.LibvirtException what the work's libvirt calls threw
     */
    <T> T call(HostEndpoint host, Deadline deadline, HostCall<T> work);

    /** Closes every connection; calls afterwards fail. */
    @Override
    void close();
}

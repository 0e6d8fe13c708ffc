package dev.egressproxies.kvm.common.host;

import dev.egressproxies.api.Deadline;

/**
 * The connections of one provider entry to its hosts: one cached connection per host, dialled
 * lazily and redialled after loss. Dials to different hosts never block each other; concurrent
 * callers for one host share one dial. {@link CachingHostConnections} is the implementation.
 *
 * <p>A call whose deadline passes, or whose thread is interrupted, closes that host's link so the
 * blocked native call returns, and fails promptly with {@link HostCallException}; the next call
 * redials. The wait for a dial honours the deadline in the same way (the dial itself goes on for
 * later callers).
 *
 * <p>A transport failure (a {@link dev.egressproxies.kvm.common.libvirt.LibvirtException} whose
 * {@linkplain dev.egressproxies.kvm.common.libvirt.LibvirtException#isTransportFailure() code and
 * source say the connection failed}, or any exception that is not one of the verdicts below) drops the
 * connection and surfaces as {@link HostCallException.Reason#UNREACHABLE}. Any other {@link
 * dev.egressproxies.kvm.common.libvirt.LibvirtException}, and any verdict the work itself throws (a
 * {@link dev.egressproxies.api.ProviderException}, an {@link IllegalArgumentException}, an {@link
 * IllegalStateException}, an {@link dev.egressproxies.kvm.common.libvirt.UploadSourceException}),
 * leaves the connection alone and is rethrown as is.
 */
public interface HostConnections extends AutoCloseable {

    /**
     * Runs work against the host's libvirt, on another thread while the caller waits up to its
     * deadline; what the work returns is returned.
     *
     * @throws HostCallException when the host could not be reached, the link failed, the deadline
     *                           passed or the thread was interrupted (its interrupt flag is kept)
     * @throws dev.egressproxies.kvm.common.libvirt.LibvirtException what the work's libvirt calls
     *                           threw, other than transport failures
     * @throws IllegalStateException when the connections were closed
     */
    <T> T call(HostEndpoint host, Deadline deadline, HostCall<T> work);

    /** Closes every connection; calls afterwards fail. */
    @Override
    void close();
}

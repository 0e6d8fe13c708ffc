package dev.egressproxies.kvm.common.host;

import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.libvirt.LibvirtException;
import dev.egressproxies.kvm.common.libvirt.UploadSourceException;

/**
 * Decides what a failure of a host call says about the link it ran on: libvirt errors and local
 * verdicts say nothing about it, anything else means it broke.
 */
final class LinkFailures {
    private LinkFailures() {
    }

    /**
     * Whether {@code failure} means the link can no longer be trusted: a libvirt transport error,
     * or any exception that is neither a libvirt error nor a verdict of the work itself.
     */
    static boolean breaksLink(Throwable failure) {
        if (failure instanceof LibvirtException libvirtError) {
            return libvirtError.isTransportFailure();
        }
        return !isVerdict(failure);
    }

    /**
     * Whether the work reached {@code failure} on its own, without evidence about the link: a
     * provider error it classified (bad placement, failed seed build), an argument or state it
     * refused, a data source that failed during an upload, or a host call it nested.
     */
    static boolean isVerdict(Throwable failure) {
        return failure instanceof ProviderException
                || failure instanceof IllegalArgumentException
                || failure instanceof IllegalStateException
                || failure instanceof UploadSourceException
                || failure instanceof HostCallException;
    }
}

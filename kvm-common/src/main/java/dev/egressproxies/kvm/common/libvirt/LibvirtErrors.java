package dev.egressproxies.kvm.common.libvirt;

import dev.egressproxies.api.ErrorKind;

/**
 * Maps libvirt error codes to the contract's error kinds: what libvirt says about a request the
 * configuration made wrong is PERMANENT, a missing domain NOT_FOUND, everything else TRANSIENT.
 */
public final class LibvirtErrors {
    private LibvirtErrors() {
    }

    /** The error kind for a libvirt error. */
    public static ErrorKind kindOf(LibvirtException error) {
        return switch (error.code()) {
            case NO_DOMAIN -> ErrorKind.NOT_FOUND;
            case XML_ERROR, XML_DETAIL, INVALID_ARGUMENT, NO_SUPPORT, NO_STORAGE_POOL, AUTH_FAILED, ACCESS_DENIED
                    -> ErrorKind.PERMANENT;
            case NO_MEMORY -> ErrorKind.QUOTA_EXCEEDED;
            default -> ErrorKind.TRANSIENT;
        };
    }
}

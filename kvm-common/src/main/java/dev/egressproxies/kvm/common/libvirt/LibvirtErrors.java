package dev.egressproxies.kvm.common.libvirt;

import dev.egressproxies.api.ErrorKind;
import java.util.Set;

/**
 * Maps libvirt errors to the contract's error kinds by their code, the part of libvirt that raised
 * them and, for a failed OS call, its OS error number; never by message text.
 *
 * <ul>
 *   <li>A transport failure ({@link LibvirtException#isTransportFailure()}) is TRANSIENT.
 *   <li>A missing domain is NOT_FOUND.
 *   <li>What libvirt says about a definition or request it cannot carry out is PERMANENT: XML it
 *       refuses, a configuration the hypervisor does not support (an unknown domain type), a
 *       missing network, interface or pool, a refused login or operation, and an unknown CPU model
 *       (an internal error of libvirt's CPU code).
 *   <li>A failed OS call on the host is PERMANENT when its error number says a configured thing
 *       is missing or inaccessible (no such file or device, permission denied), which a missing
 *       bridge or firmware file is; QUOTA_EXCEEDED when the disk is full; TRANSIENT otherwise.
 *   <li>Everything else is TRANSIENT.
 * </ul>
 */
public final class LibvirtErrors {
    /**
     * Linux error numbers of an OS call that fails the same way until the configuration changes:
     * EPERM, ENOENT, ENXIO, EACCES, ENODEV, ENOTDIR, EISDIR, EROFS, ENAMETOOLONG, ELOOP.
     */
    private static final Set<Integer> CONFIGURATION_ERROR_NUMBERS = Set.of(1, 2, 6, 13, 19, 20, 21, 30, 36, 40);
    /** ENOSPC and EDQUOT: the host's disk or the user's quota is full. */
    private static final Set<Integer> NO_SPACE_ERROR_NUMBERS = Set.of(28, 122);

    private LibvirtErrors() {
    }

    /** The error kind for a libvirt error. */
    public static ErrorKind kindOf(LibvirtException error) {
        if (error.isTransportFailure()) {
            return ErrorKind.TRANSIENT;
        }
        return switch (error.code()) {
            case NO_DOMAIN -> ErrorKind.NOT_FOUND;
            case XML_ERROR, XML_DETAIL, INVALID_ARGUMENT, NO_SUPPORT, NO_STORAGE_POOL, AUTH_FAILED, ACCESS_DENIED,
                    NO_NETWORK, NO_INTERFACE, CONFIG_UNSUPPORTED, OPERATION_UNSUPPORTED -> ErrorKind.PERMANENT;
            case NO_MEMORY -> ErrorKind.QUOTA_EXCEEDED;
            case SYSTEM_ERROR -> kindOfSystemError(error.systemErrorNumber());
            case INTERNAL_ERROR -> error.source() == LibvirtErrorSource.CPU ? ErrorKind.PERMANENT : ErrorKind.TRANSIENT;
            default -> ErrorKind.TRANSIENT;
        };
    }

    private static ErrorKind kindOfSystemError(int errorNumber) {
        if (CONFIGURATION_ERROR_NUMBERS.contains(errorNumber)) {
            return ErrorKind.PERMANENT;
        }
        return NO_SPACE_ERROR_NUMBERS.contains(errorNumber) ? ErrorKind.QUOTA_EXCEEDED : ErrorKind.TRANSIENT;
    }
}

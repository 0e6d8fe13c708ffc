package dev.egressproxies.kvm.common.libvirt;

import dev.egressproxies.api.ErrorKind;
import java.util.Set;

/**
 * An error libvirt reported: its code, the part of libvirt that raised it and, for a failed OS
 * call, the OS error number. A connection stays usable after one unless it is a transport failure.
 */
public final class LibvirtException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** What {@link #systemErrorNumber()} is when libvirt gave none. */
    public static final int NO_SYSTEM_ERROR_NUMBER = -1;
    /** EPERM, ENOENT, ENXIO, EACCES, ENODEV, ENOTDIR, EISDIR, EROFS, ENAMETOOLONG, ELOOP. */
    private static final Set<Integer> CONFIGURATION_ERROR_NUMBERS = Set.of(1, 2, 6, 13, 19, 20, 21, 30, 36, 40);
    /** ENOSPC and EDQUOT. */
    private static final Set<Integer> NO_SPACE_ERROR_NUMBERS = Set.of(28, 122);

    private final LibvirtErrorCode code;
    private final int rawCode;
    private final LibvirtErrorSource source;
    private final int rawSource;
    private final int systemErrorNumber;

    /** libvirt's {@code virErrorNumber}, {@code virErrorDomain} and a SYSTEM_ERROR's {@code errno}. */
    public LibvirtException(int rawCode, int rawSource, int systemErrorNumber, String message, Throwable cause) {
        super(message, cause);
        this.rawCode = rawCode;
        this.code = LibvirtErrorCode.of(rawCode);
        this.rawSource = rawSource;
        this.source = LibvirtErrorSource.of(rawSource);
        this.systemErrorNumber = systemErrorNumber;
    }

    /** An exception without source or OS error number: for errors this module raises itself, and fakes. */
    public LibvirtException(int rawCode, String message, Throwable cause) {
        this(rawCode, LibvirtErrorSource.UNKNOWN.number(), NO_SYSTEM_ERROR_NUMBER, message, cause);
    }

    /** An exception for a known code, without source or OS error number. */
    public LibvirtException(LibvirtErrorCode code, String message) {
        this(code.number(), message, null);
    }

    /** The same error with {@code description} (the step that failed) before its message. */
    public LibvirtException during(String description) {
        return new LibvirtException(rawCode, rawSource, systemErrorNumber, description + ": " + getMessage(), this);
    }

    /** The code, {@link LibvirtErrorCode#OTHER} for one the backends do not act on. */
    public LibvirtErrorCode code() {
        return code;
    }

    /** libvirt's number for the code. */
    public int rawCode() {
        return rawCode;
    }

    /** The part of libvirt that raised it. */
    public LibvirtErrorSource source() {
        return source;
    }

    /** libvirt's number for the source. */
    public int rawSource() {
        return rawSource;
    }

    /** The OS error number of a failed OS call, or {@link #NO_SYSTEM_ERROR_NUMBER}. */
    public int systemErrorNumber() {
        return systemErrorNumber;
    }

    /** Whether this is the given code. */
    public boolean is(LibvirtErrorCode expected) {
        return code == expected;
    }

    /**
     * Whether the link itself failed (drop and redial): RPC, no connection, or an OS call or
     * internal error of the client's side; the same codes from the daemon are answers.
     */
    public boolean isTransportFailure() {
        if (code == LibvirtErrorCode.RPC || code == LibvirtErrorCode.NO_CONNECT) {
            return true;
        }
        boolean clientSide = source == LibvirtErrorSource.RPC || source == LibvirtErrorSource.REMOTE;
        if (code == LibvirtErrorCode.SYSTEM_ERROR) {
            return clientSide || source == LibvirtErrorSource.UNKNOWN;
        }
        return clientSide && code == LibvirtErrorCode.INTERNAL_ERROR;
    }

    /**
     * The contract's kind of this error, by code, source and OS error number, never by message: a
     * transport failure is TRANSIENT, a missing domain NOT_FOUND, what libvirt cannot carry out as
     * configured (refused XML or login, missing network, interface or pool, unknown CPU model, an
     * OS call that found nothing or no access) PERMANENT, no memory or disk QUOTA_EXCEEDED, the
     * rest TRANSIENT.
     */
    public ErrorKind kind() {
        if (isTransportFailure()) {
            return ErrorKind.TRANSIENT;
        }
        return switch (code) {
            case NO_DOMAIN -> ErrorKind.NOT_FOUND;
            case XML_ERROR, XML_DETAIL, INVALID_ARGUMENT, NO_SUPPORT, NO_STORAGE_POOL, AUTH_FAILED, ACCESS_DENIED,
                    AUTH_UNAVAILABLE, NO_NETWORK, NO_INTERFACE, CONFIG_UNSUPPORTED, OPERATION_UNSUPPORTED ->
                    ErrorKind.PERMANENT;
            case NO_MEMORY -> ErrorKind.QUOTA_EXCEEDED;
            case SYSTEM_ERROR -> CONFIGURATION_ERROR_NUMBERS.contains(systemErrorNumber) ? ErrorKind.PERMANENT
                    : NO_SPACE_ERROR_NUMBERS.contains(systemErrorNumber) ? ErrorKind.QUOTA_EXCEEDED
                    : ErrorKind.TRANSIENT;
            case INTERNAL_ERROR -> source == LibvirtErrorSource.CPU ? ErrorKind.PERMANENT : ErrorKind.TRANSIENT;
            default -> ErrorKind.TRANSIENT;
        };
    }
}

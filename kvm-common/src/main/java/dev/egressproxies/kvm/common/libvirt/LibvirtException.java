package dev.egressproxies.kvm.common.libvirt;

/**
 * An error the libvirt daemon (or client library) reported, with its error code, the part of
 * libvirt that raised it and, for a failed OS call, the OS error number. It says nothing about the
 * link by itself: a connection stays usable after one, unless it is a transport failure ({@link
 * #isTransportFailure()}).
 */
public final class LibvirtException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** What {@link #systemErrorNumber()} is when libvirt gave none. */
    public static final int NO_SYSTEM_ERROR_NUMBER = -1;

    private final LibvirtErrorCode code;
    private final int rawCode;
    private final LibvirtErrorSource source;
    private final int rawSource;
    private final int systemErrorNumber;

    /**
     * Creates an exception.
     *
     * @param rawCode           libvirt's {@code virErrorNumber}
     * @param rawSource         libvirt's {@code virErrorDomain}: which part of libvirt raised it
     * @param systemErrorNumber the OS error number ({@code errno}) of a {@link LibvirtErrorCode#SYSTEM_ERROR},
     *                          which libvirt passes as the error's first integer; {@link #NO_SYSTEM_ERROR_NUMBER}
     *                          for none
     * @param message           libvirt's message
     * @param cause             the library's exception, or null
     */
    public LibvirtException(int rawCode, int rawSource, int systemErrorNumber, String message, Throwable cause) {
        super(message, cause);
        this.rawCode = rawCode;
        this.code = LibvirtErrorCode.of(rawCode);
        this.rawSource = rawSource;
        this.source = LibvirtErrorSource.of(rawSource);
        this.systemErrorNumber = systemErrorNumber;
    }

    /**
     * Creates an exception that names no source ({@link LibvirtErrorSource#UNKNOWN}) and no OS
     * error number: for the errors this module raises itself and for fakes.
     *
     * @param rawCode libvirt's {@code virErrorNumber}
     * @param message the message
     * @param cause   the cause, or null
     */
    public LibvirtException(int rawCode, String message, Throwable cause) {
        this(rawCode, LibvirtErrorSource.UNKNOWN.number(), NO_SYSTEM_ERROR_NUMBER, message, cause);
    }

    /** Creates an exception for a known code, without source or OS error number. */
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

    /** The part of libvirt that raised it, {@link LibvirtErrorSource#OTHER} for one the backends do not tell apart. */
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
     * Whether the error means the connection itself failed, so it must be dropped and redialled:
     * an RPC or no-connection error; an OS call error that the client's side of the link raised
     * (its socket broke) or that names no source; an internal error of the client's side (the
     * daemon closed the connection). The same codes raised by the daemon, such as a missing bridge
     * that is an OS call error there, are answers over a working link.
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
}

package dev.egressproxies.kvm.common.libvirt;

/**
 * An error the libvirt daemon (or client library) reported, with its error code. It says nothing
 * about the link by itself: a connection stays usable after one, unless the code is a transport
 * code ({@link #isTransportFailure()}).
 */
public final class LibvirtException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final LibvirtErrorCode code;
    private final int rawCode;

    /**
     * Creates an exception.
     *
     * @param rawCode libvirt's {@code virErrorNumber}
     * @param message libvirt's message
     * @param cause   the library's exception, or null
     */
    public LibvirtException(int rawCode, String message, Throwable cause) {
        super(message, cause);
        this.rawCode = rawCode;
        this.code = LibvirtErrorCode.of(rawCode);
    }

    /** Creates an exception for a known code. */
    public LibvirtException(LibvirtErrorCode code, String message) {
        this(code.number(), message, null);
    }

    /** The code, {@link LibvirtErrorCode#OTHER} for one the backends do not act on. */
    public LibvirtErrorCode code() {
        return code;
    }

    /** libvirt's number for the code. */
    public int rawCode() {
        return rawCode;
    }

    /** Whether this is the given code. */
    public boolean is(LibvirtErrorCode expected) {
        return code == expected;
    }

    /**
     * Whether the error means the connection itself failed (system, RPC or no-connection errors),
     * so it must be dropped and redialled.
     */
    public boolean isTransportFailure() {
        return code == LibvirtErrorCode.SYSTEM_ERROR || code == LibvirtErrorCode.RPC
                || code == LibvirtErrorCode.NO_CONNECT;
    }
}

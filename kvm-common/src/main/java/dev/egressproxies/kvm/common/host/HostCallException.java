package dev.egressproxies.kvm.common.host;

/**
 * A host call that failed for a reason of the link rather than of libvirt: the host could not be
 * reached, the link broke, the caller's deadline passed or its thread was interrupted. The
 * backend turns it into a {@link dev.egressproxies.api.ProviderException} of the matching kind.
 */
public final class HostCallException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final Reason reason;
    private final String host;

    /** Creates an exception. */
    public HostCallException(Reason reason, String host, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
        this.host = host;
    }

    /** Why it failed. */
    public Reason reason() {
        return reason;
    }

    /** The configured name of the host. */
    public String host() {
        return host;
    }

    /** Why a host call failed. */
    public enum Reason {
        /** The host could not be reached or the link broke; retry (the next call redials). */
        UNREACHABLE,
        /**
         * The connection cannot work as configured: a key file that does not parse, a host key
         * that does not match known_hosts. Retrying cannot help until the configuration changes.
         */
        MISCONFIGURED,
        /** The caller's deadline passed; the link was closed so the blocked call returned. */
        DEADLINE_EXCEEDED,
        /** The caller's thread was interrupted; the link was closed likewise. */
        INTERRUPTED
    }
}

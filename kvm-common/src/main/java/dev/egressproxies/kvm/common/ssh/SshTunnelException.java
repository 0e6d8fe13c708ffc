package dev.egressproxies.kvm.common.ssh;

/**
 * A failure to open an SSH tunnel: a message for the operator that names the host, the file or
 * setting at fault and what to change, and whether retrying with the same configuration can help.
 */
public final class SshTunnelException extends Exception {
    private static final long serialVersionUID = 1L;

    private final boolean permanent;

    private SshTunnelException(boolean permanent, String message, Throwable cause) {
        super(message, cause);
        this.permanent = permanent;
    }

    /** A failure that only a change of files or settings can fix. */
    static SshTunnelException permanent(String message, Throwable cause) {
        return new SshTunnelException(true, message, cause);
    }

    /** A failure that a later attempt may not meet: a file still being mounted, a host down, a timeout. */
    static SshTunnelException retryable(String message, Throwable cause) {
        return new SshTunnelException(false, message, cause);
    }

    /** Returns true when retrying with the same configuration cannot help. */
    public boolean isPermanent() {
        return permanent;
    }
}

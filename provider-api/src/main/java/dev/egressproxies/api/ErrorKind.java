package dev.egressproxies.api;

/**
 * The class of a {@link ProviderException}, which tells the caller whether and when a retry can help.
 */
public enum ErrorKind {
    /** The request or the configuration is wrong; retrying the same call cannot succeed. */
    PERMANENT,
    /** Something outside the caller's control failed (network, hypervisor, deadline); retry. */
    TRANSIENT,
    /** The backend lacks capacity (disk, memory, a quota) right now; retry later. */
    QUOTA_EXCEEDED,
    /** The instance does not exist (any more). */
    NOT_FOUND
}

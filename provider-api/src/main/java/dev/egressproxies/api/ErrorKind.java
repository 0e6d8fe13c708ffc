package dev.egressproxies.api;

/**
 * The class of a {@link ProviderException}, which tells the caller whether and when a retry can help.
 *
 * @since 1.0.0
 */
public enum ErrorKind {
    /**
     * The request or the configuration is wrong; retrying the same call cannot succeed.
     *
     * @since 1.0.0
     */
    PERMANENT,
    /**
     * Something outside the caller's control failed (network, hypervisor, deadline); retry.
     *
     * @since 1.0.0
     */
    TRANSIENT,
    /**
     * The backend lacks capacity (disk, memory, a quota) right now; retry later.
     *
     * @since 1.0.0
     */
    QUOTA_EXCEEDED,
    /**
     * The instance does not exist (any more).
     *
     * @since 1.0.0
     */
    NOT_FOUND
}

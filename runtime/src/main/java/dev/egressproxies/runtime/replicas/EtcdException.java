package dev.egressproxies.runtime.replicas;

/**
 * An etcd call that did not succeed: no member answered in time, or the cluster refused it. The
 * message names each member tried and its error, and the fix when there is one (credentials,
 * permissions).
 */
public final class EtcdException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final boolean refused;

    /** A failure described by its message alone: no member answered, or none usefully. */
    public EtcdException(String message) {
        this(message, false);
    }

    /**
     * @param refused whether a member answered and refused the call for a reason every member
     *                would give (credentials, permissions): trying another member is pointless
     */
    public EtcdException(String message, boolean refused) {
        super(message);
        this.refused = refused;
    }

    /** Whether the cluster refused the call, rather than failed to answer it. */
    public boolean refused() {
        return refused;
    }
}

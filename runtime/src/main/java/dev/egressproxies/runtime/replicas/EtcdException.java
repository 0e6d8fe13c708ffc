package dev.egressproxies.runtime.replicas;

/**
 * An etcd call that did not succeed: no member answered in time, or the cluster refused it. The
 * message names each member tried and its error, and the fix when there is one (credentials,
 * permissions).
 */
public final class EtcdException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** A failure described by its message alone. */
    public EtcdException(String message) {
        super(message);
    }
}

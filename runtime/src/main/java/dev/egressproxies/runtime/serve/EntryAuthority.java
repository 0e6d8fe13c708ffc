package dev.egressproxies.runtime.serve;

/**
 * Whether this process may act on an entry now. A single {@code serve} holds its state-directory
 * lock and may always act ({@link #SOLE}); replicas that share a fleet answer from their
 * leadership of the entry.
 */
@FunctionalInterface
public interface EntryAuthority {
    /** The only process serving the desired set: it may act on every entry. */
    EntryAuthority SOLE = entry -> true;

    /** Whether this process may change the entry's instances now: asked before every pass, from memory. */
    boolean mayAct(String entry);

    /**
     * Whether this process still holds the entry, asked right before each operation that changes an
     * instance; a replica asks the cluster rather than its memory. The default answers as
     * {@link #mayAct}.
     */
    default boolean confirms(String entry) {
        return mayAct(entry);
    }
}

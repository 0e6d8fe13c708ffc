package dev.egressproxies.runtime.serve;

/**
 * Whether this process may act on an entry now: asked before every pass and before every
 * operation. A single {@code serve} holds its state-directory lock and may always act
 * ({@link #SOLE}); replicas that share a fleet answer from their leadership of the entry.
 */
@FunctionalInterface
public interface EntryAuthority {
    /** The only process serving the desired set: it may act on every entry. */
    EntryAuthority SOLE = entry -> true;

    /** Whether this process may change the entry's instances now. */
    boolean mayAct(String entry);
}

package dev.egressproxies.runtime.serve;

import dev.egressproxies.api.Provider;
import java.time.Clock;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;

/**
 * How one {@code serve} process shares its fleet: alone, with a desired-set file and a lock on its
 * state directory ({@link SingleServe}); or as one of several replicas on etcd, which lead entries in
 * turn. {@link Service} asks it for the desired set's source, who may act, and what the other
 * replicas show, and tells it the entries of each set in force.
 */
public interface Replication extends AutoCloseable {
    /** Where the desired set is read. */
    DesiredSource source(Function<String, Optional<Provider>> entries, Clock clock);

    /** Whether the service takes the lock of its state directory and desired file (a single serve does). */
    boolean locksStateDirectory();

    /** Who may act on each entry. */
    EntryAuthority authority();

    /** The other replicas, as the API shows them. */
    FleetPeers peers();

    /** The entries of the desired set now in force. */
    void want(Set<String> entries);

    /**
     * Starts sharing, once the reconciler runs: it is told of entries gained and lost.
     *
     * @param log    where changes of leadership are logged
     * @param apiUrl where this process's API listens, for the other replicas to show
     * @param timer  runs the sharing's periodic work
     */
    void start(Reconciler reconciler, ActionLog log, String apiUrl, ScheduledExecutorService timer);

    /** Stops sharing, once operations have stopped; a replica hands its entries over at once. */
    @Override
    void close();
}

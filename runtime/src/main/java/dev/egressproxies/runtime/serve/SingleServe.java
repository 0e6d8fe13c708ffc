package dev.egressproxies.runtime.serve;

import dev.egressproxies.api.Provider;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;

/**
 * A {@code serve} process alone with its fleet: it keeps the set of one desired-set file in force,
 * acts on every entry of it, and holds the lock of its state directory so that no second serve
 * acts beside it.
 */
public final class SingleServe implements Replication {
    private final Path desiredFile;

    /** A single serve keeping the set of {@code desiredFile} in force. */
    public SingleServe(Path desiredFile) {
        this.desiredFile = desiredFile;
    }

    @Override
    public DesiredSource source(Function<String, Optional<Provider>> entries, Clock clock) {
        return new DesiredSetFile(desiredFile, entries, clock);
    }

    @Override
    public boolean locksStateDirectory() {
        return true;
    }

    @Override
    public EntryAuthority authority() {
        return EntryAuthority.SOLE;
    }

    @Override
    public FleetPeers peers() {
        return FleetPeers.NONE;
    }

    @Override
    public void want(Set<String> entries) {
        // alone, it acts on every entry of the set
    }

    @Override
    public void start(Reconciler reconciler, ActionLog log, String apiUrl, ScheduledExecutorService timer) {
        // nothing to campaign for
    }

    @Override
    public void close() {
        // nothing held beyond the lock, which the service releases
    }
}

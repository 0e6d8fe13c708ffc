package dev.egressproxies.runtime.replicas;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.egressproxies.api.Provider;
import dev.egressproxies.runtime.serve.ActionLog;
import dev.egressproxies.runtime.serve.DesiredSource;
import dev.egressproxies.runtime.serve.EntryAuthority;
import dev.egressproxies.runtime.serve.FleetPeers;
import dev.egressproxies.runtime.serve.Reconciler;
import dev.egressproxies.runtime.serve.Replication;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;

/**
 * One {@code serve} replica among several on an etcd cluster: the desired set in etcd, leadership
 * per entry ({@link Leadership}), and the fleet board ({@link FleetBoard}). When it loses an entry,
 * its operations on that entry are interrupted at once; when it gains one, the entry is reconciled
 * at once.
 */
public final class EtcdReplication implements Replication, Leadership.Listener {
    private final Etcd etcd;
    private final Leadership leadership;
    private final FleetBoard board;
    private volatile Reconciler reconciler;
    private volatile ActionLog log;

    /**
     * A replica; nothing is contacted until {@link #start}.
     *
     * @param replica its name, unique among the replicas
     */
    public EtcdReplication(Etcd etcd, String replica, LeaseTiming timing, Clock clock) {
        this.etcd = etcd;
        this.leadership = new Leadership(etcd, replica, timing, this, clock);
        this.board = new FleetBoard(etcd, leadership, entry -> {
            Reconciler current = reconciler;
            return current == null ? Optional.empty() : current.snapshot(entry);
        }, entry -> {
            Reconciler current = reconciler;
            return current == null ? 0 : current.changes(entry);
        }, clock);
    }

    @Override
    public DesiredSource source(Function<String, Optional<Provider>> entries, Clock clock) {
        return new EtcdDesiredSet(etcd, entries, clock);
    }

    @Override
    public boolean locksStateDirectory() {
        return false;
    }

    @Override
    public EntryAuthority authority() {
        return leadership;
    }

    @Override
    public FleetPeers peers() {
        return board;
    }

    @Override
    public void want(Set<String> entries) {
        leadership.want(entries);
    }

    @Override
    public void start(Reconciler reconciler, ActionLog log, String apiUrl, ScheduledExecutorService timer) {
        this.reconciler = reconciler;
        this.log = log;
        leadership.start(new ObjectMapper().createObjectNode().put("api", apiUrl)
                .put("pid", ProcessHandle.current().pid()).put("host", hostName()).toString());
        board.start(timer);
    }

    @Override
    public void gained(String entry) {
        event("info", "leading entry", entry, "");
        Reconciler current = reconciler;
        if (current != null) {
            current.requestPass(Optional.of(entry));
        }
    }

    @Override
    public void lost(String entry, String why) {
        event("warn", "no longer leading entry", entry, why);
        Reconciler current = reconciler;
        if (current != null) {
            current.stopEntry(entry);
        }
    }

    @Override
    public boolean awaitIdle(String entry, Duration limit) {
        Reconciler current = reconciler;
        return current == null || current.awaitIdle(entry, limit);
    }

    private void event(String level, String message, String entry, String why) {
        ActionLog current = log;
        if (current != null) {
            current.event(level, message, why.isEmpty() ? Map.of("entry", entry, "replica", leadership.replica())
                    : Map.of("entry", entry, "replica", leadership.replica(), "why", why));
        }
    }

    @Override
    public void close() {
        board.close();
        leadership.close();
    }

    /** This machine's name, as replicas and appliers are shown; empty when it cannot be found. */
    static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "";
        }
    }
}

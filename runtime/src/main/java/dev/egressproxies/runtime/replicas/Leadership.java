package dev.egressproxies.runtime.replicas;

import dev.egressproxies.runtime.serve.EntryAuthority;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * This replica's leadership of entries, on one etcd lease. A replica leads an entry while the key
 * {@code PREFIX/leaders/ENTRY} exists bound to its lease; it takes a key only when none exists
 * (one transaction), so at most one replica leads an entry at a time.
 *
 * <p>Every {@code retryPeriod} it renews the lease, then looks at the leaders and the replicas:
 * it gives up entries whose key is not bound to its lease any more, takes entries without a leader
 * while it leads fewer than its fair share (the entries divided by the replicas, rounded up), and
 * hands one entry back when it leads more (a replica that joined is then given work). Watches on
 * the leaders and on the replicas run the same step at once when a key goes or a replica joins,
 * so neither a successor nor a newcomer waits a period.
 *
 * <p>Fencing: {@link #mayAct} says no once the last renewal is {@code renewDeadline} old, and a
 * watchdog then tells the listener that every entry is lost, so operations in flight are
 * interrupted, all before etcd can end the lease and let another replica lead. docs/replicas.md
 * gives the timing and what it promises.
 */
public final class Leadership implements EntryAuthority, AutoCloseable {
    /** How often the watchdog compares the last renewal with the renew deadline. */
    private static final long WATCHDOG_MILLIS = 100;
    /** Every how many quiet retry periods a replica looks at the leaders and replicas anyway. */
    private static final int LOOK_EVERY = 5;

    private final Etcd etcd;
    private final String replica;
    private volatile String description = "{}";
    private final LeaseTiming timing;
    private final Listener listener;
    private final Clock clock;
    private final Set<String> led = ConcurrentHashMap.newKeySet();
    private final Set<String> handingOver = ConcurrentHashMap.newKeySet();
    private final ExecutorService handovers = Executors.newSingleThreadExecutor(daemon("etcd-handover"));
    private final Object wake = new Object();
    private volatile Set<String> wanted = Set.of();
    private volatile long lease;
    private volatile long renewedAtNanos;
    private volatile boolean running = true;
    private volatile boolean woken;
    private volatile boolean justRegistered;
    private volatile Instant lastContact;
    private volatile String lastError = "";
    private volatile Map<String, String> leaders = Map.of();
    private volatile int replicas;
    private Thread loop;
    private Thread watchdog;
    private final List<AutoCloseable> watches = new ArrayList<>();

    /** What a change of leadership means to the replica. */
    public interface Listener {
        /** This replica leads the entry now: reconcile it. */
        void gained(String entry);

        /**
         * This replica must not act on the entry any more: interrupt its operations now, without
         * waiting for them. Called once per loss, on the leadership's own threads.
         */
        void lost(String entry, String why);

        /**
         * Waits up to {@code limit} for the entry's operations to end, interrupting none: a
         * hand-over lets them finish while it still holds the key.
         *
         * @return whether none is left
         */
        boolean awaitIdle(String entry, Duration limit);
    }

    /**
     * Leadership for one replica.
     *
     * @param replica this replica's name, unique among the replicas
     */
    public Leadership(Etcd etcd, String replica, LeaseTiming timing, Listener listener, Clock clock) {
        this.etcd = etcd;
        this.replica = replica;
        this.timing = timing;
        this.listener = listener;
        this.clock = clock;
    }

    /** This replica's name. */
    public String replica() {
        return replica;
    }

    /**
     * Starts renewing, campaigning and watching.
     *
     * @param about what other replicas show about this one (its API URL, process), as JSON
     */
    public synchronized void start(String about) {
        description = about;
        loop = daemon("etcd-leadership").newThread(this::run);
        watchdog = daemon("etcd-fence").newThread(this::guard);
        loop.start();
        watchdog.start();
        watches.add(etcd.watchPrefix(etcd.prefix() + "leaders/", this::wake));
        watches.add(etcd.watchPrefix(etcd.prefix() + "replicas/", this::wake));
    }

    /** The entries of the desired set in force: those a replica may lead. */
    public void want(Set<String> entries) {
        Set<String> now = Set.copyOf(entries);
        // Every resync puts the set in force again; only a change of its entries is news here.
        if (!now.equals(wanted)) {
            wanted = now;
            wake();
        }
    }

    /** {@inheritDoc} Yes while this replica holds the entry and renewed its lease within the renew deadline. */
    @Override
    public boolean mayAct(String entry) {
        return led.contains(entry) && !handingOver.contains(entry) && renewedRecently();
    }

    /** {@inheritDoc} Asks the cluster whether the entry's key is still bound to this replica's lease. */
    @Override
    public boolean confirms(String entry) {
        if (!mayAct(entry)) {
            return false;
        }
        try {
            long held = lease;
            return etcd.get(leaderKey(entry)).first().map(key -> key.lease() == held).orElse(false);
        } catch (EtcdException unreachable) {
            return false;
        }
    }

    /** The entries of the desired set in force. */
    public Set<String> wanted() {
        return wanted;
    }

    /** The leader of each entry that has one, as last read. */
    public Map<String, String> leaders() {
        return leaders;
    }

    /** How many replicas were alive at the last look. */
    public int replicas() {
        return replicas;
    }

    /** The entries this replica leads now. */
    public Set<String> led() {
        return Set.copyOf(led);
    }

    /** When etcd last answered this replica, or empty if never. */
    public Optional<Instant> lastContact() {
        return Optional.ofNullable(lastContact);
    }

    /** Why the last call to etcd failed; empty when it succeeded. */
    public String lastError() {
        return lastError;
    }

    /** Whether etcd answered the last renewal. */
    public boolean reachable() {
        return lastError.isEmpty() && lastContact != null;
    }

    private boolean renewedRecently() {
        return lease != 0 && System.nanoTime() - renewedAtNanos < timing.renewDeadline().toNanos();
    }

    private void wake() {
        synchronized (wake) {
            woken = true;
            wake.notifyAll();
        }
    }

    private void run() {
        boolean look = true;
        int quiet = 0;
        while (running) {
            step(look);
            boolean wokenNow;
            synchronized (wake) {
                long end = System.nanoTime() + timing.retryPeriod().toNanos();
                while (running && !woken && end - System.nanoTime() > 0) {
                    try {
                        TimeUnit.NANOSECONDS.timedWait(wake, end - System.nanoTime());
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                wokenNow = woken;
                woken = false;
            }
            // The watches report every change of a leader or a replica at once; a look every few
            // periods catches anything a broken watch missed.
            quiet = wokenNow ? 0 : quiet + 1;
            look = wokenNow || justRegistered || quiet % LOOK_EVERY == 0 || !lastError.isEmpty();
            justRegistered = false;
        }
    }

    /**
     * One renewal and, when {@code look}, one look at the leaders and replicas; any etcd failure
     * ends the step, to be tried again.
     */
    void step(boolean look) {
        long sent = System.nanoTime();
        try {
            if (lease == 0 || etcd.keepAlive(lease) == 0) {
                if (lease != 0) {
                    loseAll("its lease ended before it was renewed");
                }
                long granted = etcd.grantLease(timing.leaseDuration());
                etcd.put(replicaKey(), description, granted);
                lease = granted;
                renewedAtNanos = sent;
                lastContact = clock.instant();
                lastError = "";
                // Campaign from the next step: replicas started together then count each other.
                justRegistered = true;
                return;
            }
            renewedAtNanos = sent;
            lastContact = clock.instant();
            lastError = "";
            if (look) {
                balance();
            }
        } catch (EtcdException failed) {
            lastError = failed.getMessage();
        }
    }

    private void balance() {
        long mine = lease;
        Map<String, String> current = new HashMap<>();
        Set<String> ours = new HashSet<>();
        for (Etcd.KeyValue key : etcd.getPrefix(etcd.prefix() + "leaders/").keys()) {
            String entry = key.key().substring((etcd.prefix() + "leaders/").length());
            current.put(entry, key.value());
            if (key.lease() == mine) {
                ours.add(entry);
            }
        }
        int alive = Math.max(1, etcd.getPrefix(etcd.prefix() + "replicas/").keys().size());
        replicas = alive;
        for (String entry : Set.copyOf(led)) {
            if (!ours.contains(entry) && !handingOver.contains(entry)) {
                lose(entry, current.containsKey(entry) ? "replica " + current.get(entry) + " leads it now"
                        : "its leadership key is gone");
            }
        }
        for (String entry : ours) {
            if (!wanted.contains(entry)) {
                handOver(entry, "the desired set no longer names it");
            } else if (!handingOver.contains(entry) && led.add(entry)) {
                listener.gained(entry);
            }
        }
        Set<String> wantedNow = wanted;
        int share = (wantedNow.size() + alive - 1) / alive;
        // Each entry's preference is one digest, computed once rather than in every comparison.
        List<String> free = wantedNow.stream().filter(entry -> !current.containsKey(entry))
                .map(entry -> Map.entry(preference(entry), entry)).sorted(Map.Entry.comparingByKey())
                .map(Map.Entry::getValue).toList();
        for (String entry : free) {
            if (led.size() >= share) {
                break;
            }
            if (etcd.create(leaderKey(entry), replica, mine)) {
                current.put(entry, replica);
                led.add(entry);
                listener.gained(entry);
            }
        }
        if (free.isEmpty() && led.size() - handingOver.size() > share) {
            led.stream().filter(entry -> !handingOver.contains(entry)).max(Comparator.comparing(this::preference))
                    .ifPresent(entry -> handOver(entry, "replica count is " + alive + ": this one leads more than its"
                            + " share of " + share));
        }
        leaders = Map.copyOf(current);
    }

    /** Rendezvous order: each replica prefers different entries, so replicas starting together rarely race. */
    private String preference(String entry) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest((replica + "\n" + entry)
                    .getBytes(StandardCharsets.UTF_8));
            return java.util.HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    private void handOver(String entry, String why) {
        if (!handingOver.add(entry)) {
            return;
        }
        long mine = lease;
        handovers.execute(() -> {
            try {
                // No new operation starts (mayAct says no); those running may finish while the key is still ours.
                if (!listener.awaitIdle(entry, timing.leaseDuration())) {
                    listener.lost(entry, "handed over: " + why + "; operations still running were interrupted");
                    listener.awaitIdle(entry, timing.leaseDuration().minus(timing.renewDeadline()));
                } else {
                    listener.lost(entry, "handed over: " + why);
                }
                led.remove(entry);
                etcd.deleteIfLease(leaderKey(entry), mine);
            } catch (EtcdException failed) {
                // The key stays bound to the lease; the next step finds it ours and hands it over again.
                lastError = failed.getMessage();
            } finally {
                handingOver.remove(entry);
            }
        });
    }

    private void lose(String entry, String why) {
        if (led.remove(entry)) {
            listener.lost(entry, why);
        }
    }

    private void loseAll(String why) {
        for (String entry : Set.copyOf(led)) {
            lose(entry, why);
        }
    }

    private void guard() {
        while (running) {
            if (!led.isEmpty() && !renewedRecently()) {
                loseAll("its lease was not renewed within the renew deadline (" + timing.renewDeadline().toSeconds()
                        + " s): " + (lastError.isEmpty() ? "the replica was paused or too slow" : lastError));
            }
            try {
                Thread.sleep(WATCHDOG_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /**
     * Gives up every entry and revokes the lease, so successors take over at once rather than
     * after the lease's time; call it once operations have stopped.
     */
    @Override
    public void close() {
        running = false;
        wake();
        synchronized (this) {
            for (AutoCloseable watch : watches) {
                try {
                    watch.close();
                } catch (Exception ignored) {
                    // a daemon thread
                }
            }
        }
        if (loop != null) {
            loop.interrupt();
            watchdog.interrupt();
        }
        handovers.shutdownNow();
        loseAll("the replica is stopping");
        long mine = lease;
        lease = 0;
        if (mine != 0) {
            try {
                etcd.revoke(mine);
            } catch (EtcdException unreachable) {
                // The lease ends on its own after its time to live.
            }
        }
    }

    private String leaderKey(String entry) {
        return etcd.prefix() + "leaders/" + entry;
    }

    private String replicaKey() {
        return etcd.prefix() + "replicas/" + replica;
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        };
    }
}

package dev.egressproxies.runtime.serve;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.egressproxies.api.Provider;
import dev.egressproxies.runtime.apply.ResolvedProxy;
import dev.egressproxies.runtime.config.ConfigException;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Keeps the desired set in force on every entry it names: one {@link EntryReconciler} per entry,
 * a pass of each at start, after each edit of the file, every resync period and on demand. A file
 * that cannot be read or checked changes nothing: the last good set stays in force and its
 * problems are reported until the file is fixed.
 */
public final class Reconciler {
    /** Where the loader's message starts listing its problems. */
    private static final String LIST_START = ", nothing was changed:\n";
    private final ServeContext context;
    private final DesiredSource source;
    private final Consumer<Set<String>> onEntries;
    private final Function<String, Optional<Provider>> providers;
    private final Map<String, String> types;
    private final Set<String> confirmFirstHold;
    private final Map<String, EntryReconciler> entries = new LinkedHashMap<>();
    private final ApiDocuments documents = new ApiDocuments();
    private volatile DesiredSource.Loaded inForce;
    private volatile List<String> problems = List.of();
    private volatile Instant lastReadAt;
    private String lastRejected = "";

    /**
     * The desired set as the API shows it.
     *
     * @param source     where the set is: the file's path, or {@code etcd:KEY}
     * @param isFile     whether it is a file on this machine
     * @param revision   the revision in force
     * @param loadedAt   when the revision in force was read
     * @param problems   why the file as it is now was rejected; empty when the revision in force is current
     * @param lastReadAt when the file was last read
     */
    public record DesiredView(String source, boolean isFile, String revision, Instant loadedAt, List<String> problems, Instant lastReadAt) {
    }

    /**
     * @param onEntries told the entries of each set put in force (replicas campaign for them)
     */
    Reconciler(ServeContext context, DesiredSource source, Function<String, Optional<Provider>> providers,
               Map<String, String> types, Set<String> confirmFirstHold, Consumer<Set<String>> onEntries) {
        this.context = context;
        this.source = source;
        this.onEntries = onEntries;
        this.providers = providers;
        this.types = Map.copyOf(types);
        this.confirmFirstHold = Set.copyOf(confirmFirstHold);
    }

    /**
     * Puts the first desired set in force, starts its passes, watches the file and resyncs every
     * {@code resync}.
     *
     * @throws IOException when the file's folder cannot be watched
     */
    void start(DesiredSource.Loaded initial, Duration resync) throws IOException {
        lastReadAt = initial.loadedAt();
        putInForce(initial);
        source.watch(() -> reload("edit"));
        context.timer().scheduleAtFixedRate(this::resync, resync.toMillis(), resync.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Reads the file again and reconciles every entry now. */
    void resync() {
        reload("resync");
        requestPass(Optional.empty());
    }

    /**
     * Reads the file; a set that passes every check goes in force, a file that does not changes
     * nothing and its problems are shown.
     */
    synchronized void reload(String why) {
        lastReadAt = context.clock().instant();
        try {
            DesiredSource.Loaded loaded = source.load();
            problems = List.of();
            lastRejected = "";
            context.metrics().desiredLoad(true);
            if (!loaded.revision().equals(inForce.revision())) {
                context.log().event("info", "desired set loaded", Map.of("source", source.location(),
                        "revision", loaded.revision(), "cause", why));
            }
            // The same revision read again stays the one loaded then, so its age says when the file last changed.
            putInForce(loaded.revision().equals(inForce.revision())
                    ? new DesiredSource.Loaded(loaded.state(), inForce.revision(), inForce.loadedAt()) : loaded);
        } catch (ConfigException rejected) {
            problems = problemsOf(rejected.getMessage());
            context.metrics().desiredLoad(false);
            String revision = source.revision();
            if (!revision.equals(lastRejected)) {
                lastRejected = revision;
                context.log().event("warn", "desired set rejected; the last good set stays in force", Map.of(
                        "source", source.location(), "inForce", inForce.revision(), "problems",
                        String.join(" | ", problems)));
            }
        } catch (RuntimeException unreachable) {
            // A set kept elsewhere (etcd) that cannot be read now: the set in force stays, as for a rejected one.
            problems = List.of("cannot read " + source.location() + ": " + unreachable.getMessage());
            if (!lastRejected.equals("unreadable")) {
                lastRejected = "unreadable";
                context.log().event("warn", "desired set unreadable; the last good set stays in force", Map.of(
                        "source", source.location(), "inForce", inForce.revision(), "error",
                        String.valueOf(unreachable.getMessage())));
            }
        }
    }

    /** The problems a rejection lists one per line after its summary; any other message is one problem. */
    static List<String> problemsOf(String message) {
        int list = message.indexOf(LIST_START);
        if (list < 0) {
            return List.of(message.replaceAll("\\s*\n\\s*", " ").strip());
        }
        return Arrays.stream(message.substring(list + LIST_START.length()).split("\n")).map(String::strip)
                .filter(line -> !line.isEmpty()).toList();
    }

    private synchronized void putInForce(DesiredSource.Loaded loaded) {
        inForce = loaded;
        Map<String, List<ResolvedProxy>> byEntry = new LinkedHashMap<>();
        loaded.state().entries().forEach(entry -> byEntry.put(entry, new ArrayList<>()));
        loaded.state().proxies().forEach(proxy -> byEntry.get(proxy.entry()).add(proxy));
        // Entries the set no longer names are left as they are, as apply leaves them.
        entries.keySet().removeIf(entry -> {
            if (byEntry.containsKey(entry)) {
                return false;
            }
            entries.get(entry).stop();
            context.status().removeEntry(entry);
            return true;
        });
        byEntry.forEach((entry, proxies) -> {
            EntryReconciler reconciler = entries.computeIfAbsent(entry, name -> new EntryReconciler(name,
                    types.getOrDefault(name, ""), providers.apply(name).orElseThrow(), context,
                    confirmFirstHold.contains(name) || confirmFirstHold.contains("all")));
            reconciler.desire(proxies);
            reconciler.requestPass(Duration.ZERO);
        });
        onEntries.accept(Set.copyOf(byEntry.keySet()));
    }

    /**
     * Asks for a pass of one entry now, or of all.
     *
     * @return the entries asked; empty when the named entry is not in the desired set
     */
    public synchronized List<String> requestPass(Optional<String> entry) {
        List<String> asked = new ArrayList<>();
        entries.forEach((name, reconciler) -> {
            if (entry.isEmpty() || entry.get().equals(name)) {
                reconciler.requestPass(Duration.ZERO);
                asked.add(name);
            }
        });
        return asked;
    }

    /**
     * Stops this process's work on one entry, whose leadership was lost: drops its queued steps and
     * interrupts the running ones, which return within about a second and clean up. Its passes stop
     * by themselves, since the authority says no.
     */
    public void stopEntry(String entry) {
        context.operations().cancel(entry);
    }

    /**
     * Waits up to {@code limit} for one entry's operations to end, interrupting none: how a replica
     * hands an entry over without cutting a create short.
     *
     * @return whether none is left
     */
    public boolean awaitIdle(String entry, Duration limit) {
        try {
            return context.operations().awaitIdle(entry, limit);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Confirms the deletes held back in an entry.
     *
     * @return the qualified IDs confirmed, or empty when the entry is not in the desired set
     */
    public synchronized Optional<List<String>> confirmDeletes(String entry) {
        EntryReconciler reconciler = entries.get(entry);
        return reconciler == null ? Optional.empty() : Optional.of(reconciler.confirmDeletes());
    }

    /**
     * What a replica publishes of an entry it leads: the entry, its proxies and the desired
     * revision in force; empty when the desired set does not name the entry.
     */
    public Optional<ObjectNode> snapshot(String entry) {
        EntryReconciler reconciler;
        synchronized (this) {
            reconciler = entries.get(entry);
        }
        return reconciler == null ? Optional.empty() : Optional.of(documents.snapshot(inForce.revision(),
                reconciler.view(), context.status().ofEntry(entry)));
    }

    /** A number that changes whenever a view of the entry changes beyond the time it was last looked at. */
    public long changes(String entry) {
        return context.status().changes(entry);
    }

    /** A number that changes whenever a proxy's view does. */
    public long proxiesVersion() {
        return context.status().version();
    }

    /** Every proxy, by entry and name. */
    public List<ProxyView> proxies() {
        return context.status().all();
    }

    /** One proxy. */
    public Optional<ProxyView> proxy(String entry, String name) {
        return context.status().get(entry, name);
    }

    /** Every entry of the desired set in force. */
    public synchronized List<EntryView> entries() {
        return entries.values().stream().map(EntryReconciler::view).toList();
    }

    /** The desired set in force, and the problems of the file as it is now. */
    public DesiredView desired() {
        DesiredSource.Loaded loaded = inForce;
        return new DesiredView(source.location(), source.isFile(), loaded.revision(), loaded.loadedAt(), problems,
                lastReadAt);
    }

    /**
     * Stops: no new pass or operation starts; operations in flight get {@code grace} to finish (less
     * when {@code hurry} opens), then are interrupted and given {@code cleanUp} to return.
     *
     * @return whether every operation returned
     */
    boolean stop(Duration grace, Duration cleanUp, CountDownLatch hurry) throws InterruptedException {
        synchronized (this) {
            entries.values().forEach(EntryReconciler::stop);
        }
        context.timer().shutdownNow();
        context.operations().close();
        try {
            source.close();
        } catch (IOException ignored) {
            // the watch thread is a daemon
        }
        long end = System.nanoTime() + grace.toNanos();
        boolean finished = context.operations().awaitIdle(Duration.ZERO);
        while (!finished && System.nanoTime() < end && hurry.getCount() > 0) {
            finished = context.operations().awaitIdle(Duration.ofMillis(Math.min(200,
                    Math.max(1, (end - System.nanoTime()) / 1_000_000))));
        }
        if (!finished) {
            context.log().event("warn", "interrupting the operations in flight", Map.of("grace", grace.toString(),
                    "inFlight", Integer.toString(context.operations().size())));
            context.operations().interrupt();
            finished = context.operations().awaitIdle(cleanUp);
        }
        context.listing().shutdownNow();
        return finished;
    }
}

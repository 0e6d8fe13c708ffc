package dev.egressproxies.runtime.serve;

import dev.egressproxies.api.Provider;
import dev.egressproxies.runtime.apply.ResolvedProxy;
import dev.egressproxies.runtime.config.ConfigException;
import java.io.IOException;
import java.nio.file.Path;
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
    private final DesiredSetFile file;
    private final Function<String, Optional<Provider>> providers;
    private final Map<String, String> types;
    private final Set<String> confirmFirstHold;
    private final Map<String, EntryReconciler> entries = new LinkedHashMap<>();
    private volatile DesiredSetFile.Loaded inForce;
    private volatile List<String> problems = List.of();
    private volatile Instant lastReadAt;
    private String lastRejected = "";

    /**
     * The desired set as the API shows it.
     *
     * @param file       the desired-set file
     * @param revision   the revision in force
     * @param loadedAt   when the revision in force was read
     * @param problems   why the file as it is now was rejected; empty when the revision in force is current
     * @param lastReadAt when the file was last read
     */
    public record DesiredView(Path file, String revision, Instant loadedAt, List<String> problems, Instant lastReadAt) {
    }

    Reconciler(ServeContext context, DesiredSetFile file, Function<String, Optional<Provider>> providers,
               Map<String, String> types, Set<String> confirmFirstHold) {
        this.context = context;
        this.file = file;
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
    void start(DesiredSetFile.Loaded initial, Duration resync) throws IOException {
        lastReadAt = initial.loadedAt();
        putInForce(initial);
        file.watch(() -> reload("edit"));
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
            DesiredSetFile.Loaded loaded = file.load();
            problems = List.of();
            lastRejected = "";
            context.metrics().desiredLoad(true);
            if (!loaded.revision().equals(inForce.revision())) {
                context.log().event("info", "desired set loaded", Map.of("file", file.path().toString(),
                        "revision", loaded.revision(), "cause", why));
            }
            putInForce(loaded);
        } catch (ConfigException rejected) {
            problems = problemsOf(rejected.getMessage());
            context.metrics().desiredLoad(false);
            String revision = file.revision();
            if (!revision.equals(lastRejected)) {
                lastRejected = revision;
                context.log().event("warn", "desired set rejected; the last good set stays in force", Map.of(
                        "file", file.path().toString(), "inForce", inForce.revision(), "problems",
                        String.join(" | ", problems)));
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

    private synchronized void putInForce(DesiredSetFile.Loaded loaded) {
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
     * Confirms the deletes held back in an entry.
     *
     * @return the qualified IDs confirmed, or empty when the entry is not in the desired set
     */
    public synchronized Optional<List<String>> confirmDeletes(String entry) {
        EntryReconciler reconciler = entries.get(entry);
        return reconciler == null ? Optional.empty() : Optional.of(reconciler.confirmDeletes());
    }

    /** Every proxy, by entry and name. */
    public List<ProxyView> proxies() {
        return context.status().all();
    }

    /** Grows with every change of a proxy's view; equal numbers mean {@link #proxies()} is unchanged. */
    long proxiesVersion() {
        return context.status().version();
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
        DesiredSetFile.Loaded loaded = inForce;
        return new DesiredView(file.path(), loaded.revision(), loaded.loadedAt(), problems, lastReadAt);
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
            file.close();
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

package dev.egressproxies.runtime.serve;

import dev.egressproxies.runtime.apply.PlanExecutor;
import dev.egressproxies.runtime.wiring.ProviderEntries;
import dev.egressproxies.runtime.wiring.Session;
import java.io.PrintStream;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The resident service's life: checks its settings, takes its lock, loads the desired set, starts
 * the reconciler and the API, runs until SIGTERM or SIGINT, and stops cleanly: operations in flight
 * finish within the grace period, or are interrupted and clean up; then it exits 0.
 */
public final class Service {
    /** How long a zone's listing may take before the zone counts as down for that pass. */
    static final Duration LIST_BUDGET = Duration.ofSeconds(20);
    /** How long interrupted operations get to return and clean up after the grace period. */
    static final Duration CLEAN_UP = Duration.ofSeconds(15);

    private final ServeSettings settings;
    private final Session session;
    private final Replication replication;
    private final Clock clock = Clock.systemUTC();
    private final ShutdownSignals signals = new ShutdownSignals();
    private volatile boolean started;
    private volatile boolean stopping;

    /** A service of these settings on this session's entries, alone or as a replica. */
    public Service(ServeSettings settings, Session session, Replication replication) {
        this.settings = settings;
        this.session = session;
        this.replication = replication;
    }

    /**
     * Runs until a signal stops it.
     *
     * @return the exit code: 0 after a clean stop
     * @throws dev.egressproxies.runtime.config.ConfigException when a setting, the token, the TLS
     *         files or the desired set cannot be used, or another serve holds the lock; nothing started
     */
    public int run() throws Exception {
        BearerToken token = settings.tokenFile() == null ? null : BearerToken.read(settings.tokenFile());
        KeyStore tls = settings.tlsCertificate() == null ? null
                : PemKeyStore.load(settings.tlsCertificate(), settings.tlsKey());
        ProviderEntries entries = session.entries();
        Map<String, String> types = new LinkedHashMap<>();
        entries.entries().forEach(entry -> types.put(entry.name(), entry.type()));
        DesiredSource source = replication.source(entries::provider, clock);
        DesiredSource.Loaded initial = source.load();
        String scheme = tls == null ? "http" : "https";
        PrintStream err = session.err();
        if (settings.logFormat() == LogFormat.JSON) {
            err = new JsonLogStream(err, clock).printStream();
            System.setErr(err);
        }
        ActionLog log = new ActionLog(err, settings.logFormat(), clock);
        try (ServeLock lock = replication.locksStateDirectory() ? ServeLock.take(session.stateDirectory(),
                Path.of(source.location()), "pid " + ProcessHandle.current().pid() + ", --listen "
                        + settings.listen().getHostString() + ":" + settings.listen().getPort()) : null;
             replication) {
            ServeMetrics metrics = new ServeMetrics();
            ScheduledExecutorService timer = Executors.newScheduledThreadPool(Math.max(2, types.size()),
                    daemons("serve-pass"));
            ServeContext context = new ServeContext(new PlanExecutor(session::provider, session::deadline),
                    new OperationQueue(settings.perHost()), new FleetStatus(), metrics, log, clock, settings.backoff(),
                    LIST_BUDGET.compareTo(session.timeout()) < 0 ? LIST_BUDGET : session.timeout(),
                    replication.authority(), timer, Executors.newCachedThreadPool(daemons("serve-list")));
            Reconciler reconciler = new Reconciler(context, source, entries::provider, types, settings.confirmDeletes(),
                    replication::want);
            if (replication.peers() != FleetPeers.NONE) {
                metrics.replication(() -> reconciler.entries().stream().map(EntryView::name).toList(),
                        replication.authority(), replication.peers());
            }
            ApiHandler handler = new ApiHandler(reconciler, metrics, token, !settings.loopback(), this::notReady,
                    replication.peers());
            try (ApiServer server = new ApiServer(settings.listen(), tls, handler)) {
                server.start();
                signals.install();
                reconciler.start(initial, settings.resync());
                String url = scheme + "://" + hostForUrl() + ":" + server.port() + "/";
                replication.start(reconciler, log, url, Executors.newSingleThreadScheduledExecutor(
                        daemons("serve-replica")));
                started = true;
                log.event("info", "serving " + url, Map.of(
                        "desired", source.location(), "revision", initial.revision(), "resync",
                        settings.resync().toString()));
                String cause = signals.awaitStop();
                stopping = true;
                log.event("info", "stopping: operations in flight may finish", Map.of("signal", cause, "grace",
                        settings.grace().toString()));
                boolean clean = reconciler.stop(settings.grace(), CLEAN_UP, signals.hurry());
                log.event(clean ? "info" : "warn", clean ? "stopped" : "stopped with operations still returning",
                        Map.of());
            }
        }
        return 0;
    }

    private Optional<String> notReady() {
        if (stopping) {
            return Optional.of("stopping");
        }
        return started ? Optional.empty() : Optional.of("starting");
    }

    private String hostForUrl() {
        String host = settings.listen().getHostString();
        return host.contains(":") ? "[" + host + "]" : host;
    }

    private static ThreadFactory daemons(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return task -> {
            Thread thread = new Thread(task, prefix + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}

package dev.egressproxies.runtime.cli;

import dev.egressproxies.runtime.config.ConfigException;
import dev.egressproxies.runtime.replicas.Etcd;
import dev.egressproxies.runtime.replicas.EtcdOptions;
import dev.egressproxies.runtime.replicas.EtcdReplication;
import dev.egressproxies.runtime.replicas.LeaseTiming;
import dev.egressproxies.runtime.serve.Backoff;
import dev.egressproxies.runtime.serve.LogFormat;
import dev.egressproxies.runtime.serve.Replication;
import dev.egressproxies.runtime.serve.ServeSettings;
import dev.egressproxies.runtime.serve.SingleServe;
import dev.egressproxies.runtime.serve.Service;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code egressctl serve -f FILE}, or {@code serve --etcd URLS} as one of several replicas: the
 * resident reconciler. Keeps the desired set in force on
 * every entry it names, continuously, and serves a JSON API, health probes, Prometheus metrics and
 * a status page.
 */
@Command(name = "serve", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Keeps a desired set in force, continuously: reconciles at start, on every edit of the file,"
            + " every resync period and on demand, and serves an HTTP API, /healthz, /readyz, /metrics and a status"
            + " page. Stops cleanly on SIGTERM or SIGINT."})
final class ServeCommand implements Callable<Integer> {
    /** The HTTP server's module: in lib/serve, which the launcher adds for this command alone. */
    private static final String SERVER_MODULE = "org.eclipse.jetty.server";

    @ParentCommand
    RootCommand root;

    @Option(names = {"-f", "--file"}, paramLabel = "FILE",
            description = "The desired set (YAML), as apply reads it; with --etcd the set is in etcd instead (apply -f FILE --etcd ...).")
    Path file;

    @Mixin
    EtcdConnection etcd = new EtcdConnection();

    @Option(names = "--replica", paramLabel = "NAME",
            description = "With --etcd: this replica's name, unique among the replicas (default HOSTNAME-PID).")
    String replica;

    @Option(names = "--lease-duration", paramLabel = "DURATION", defaultValue = "15s", converter = DurationConverter.class,
            description = "With --etcd: how long a replica's leadership outlives its last renewal (default ${DEFAULT-VALUE}).")
    Duration leaseDuration;

    @Option(names = "--renew-deadline", paramLabel = "DURATION", defaultValue = "10s", converter = DurationConverter.class,
            description = "With --etcd: a replica that has not renewed for this long stops acting (default ${DEFAULT-VALUE}).")
    Duration renewDeadline;

    @Option(names = "--retry-period", paramLabel = "DURATION", defaultValue = "2s", converter = DurationConverter.class,
            description = "With --etcd: how often a replica renews and looks for entries without a leader (default ${DEFAULT-VALUE}).")
    Duration retryPeriod;

    @Option(names = "--listen", paramLabel = "HOST:PORT", defaultValue = ServeSettings.DEFAULT_LISTEN,
            description = "The API's address (default ${DEFAULT-VALUE}). Beyond loopback it needs --tls-cert, --tls-key and --token-file.")
    String listen;

    @Option(names = "--resync", paramLabel = "DURATION", defaultValue = "60s", converter = DurationConverter.class,
            description = "Reconcile every entry this often even without a change (default ${DEFAULT-VALUE}).")
    Duration resync;

    @Option(names = "--grace", paramLabel = "DURATION", defaultValue = "60s", converter = DurationConverter.class,
            description = "On SIGTERM or SIGINT, how long operations in flight may finish before they are interrupted (default ${DEFAULT-VALUE}).")
    Duration grace;

    @Option(names = "--tls-cert", paramLabel = "PEM", description = "Serve HTTPS with this certificate chain.")
    Path tlsCertificate;

    @Option(names = "--tls-key", paramLabel = "PEM", description = "The certificate's private key (unencrypted PKCS#8 PEM).")
    Path tlsKey;

    @Option(names = "--token-file", paramLabel = "FILE",
            description = "A file holding the API token: POSTs need 'Authorization: Bearer TOKEN' (beyond loopback, every API call does).")
    Path tokenFile;

    @Option(names = "--log-format", paramLabel = "FORMAT", defaultValue = "text",
            description = "text (default) or json: one JSON object per line on standard error.")
    String logFormat;

    @Option(names = "--confirm-deletes", paramLabel = "ENTRY",
            description = "Confirm at start the deletes the mass-delete rule holds back in ENTRY (or 'all'); repeatable.")
    List<String> confirmDeletes = new ArrayList<>();

    @Option(names = "--per-host", paramLabel = "N", defaultValue = "4",
            description = "How many operations may run at once against one host (default ${DEFAULT-VALUE}).")
    int perHost;

    @Option(names = "--backoff-max", paramLabel = "DURATION", defaultValue = "5m", converter = DurationConverter.class,
            description = "The longest wait of a failing proxy before its next attempt; waits start at 5s and double (default ${DEFAULT-VALUE}).")
    Duration backoffMax;

    @Override
    public Integer call() throws Exception {
        Module own = ServeCommand.class.getModule();
        if (own.isNamed() && own.getLayer().findModule(SERVER_MODULE).isEmpty()) {
            throw new ConfigException("serve needs its HTTP server (" + SERVER_MODULE + "), which is not on the module"
                    + " path: start egressctl with bin/egressctl, which adds lib/serve");
        }
        ServeSettings settings = new ServeSettings(ServeSettings.parseListen(listen), resync, grace,
                tlsCertificate, tlsKey, tokenFile, logFormat(), new HashSet<>(confirmDeletes), perHost,
                Backoff.upTo(backoffMax));
        return new Service(settings, root.session(), replication()).run();
    }

    /** Alone with a file, or a replica on etcd with the set there. */
    private Replication replication() {
        Optional<EtcdOptions> cluster = etcd.options();
        if (cluster.isEmpty()) {
            if (file == null) {
                throw new ConfigException("serve needs the desired set: -f FILE, or --etcd URL[,URL...] for a replica"
                        + " that reads it from etcd");
            }
            if (replica != null) {
                throw new ConfigException("--replica names one of several replicas on etcd: give --etcd too");
            }
            return new SingleServe(file);
        }
        if (file != null) {
            throw new ConfigException("with --etcd the desired set is kept in etcd, where every replica reads it: leave"
                    + " out -f, and write the set with egressctl apply -f " + file + " --etcd ...");
        }
        LeaseTiming timing = new LeaseTiming(leaseDuration, renewDeadline, retryPeriod);
        String name = replica != null ? replica : defaultReplicaName();
        if (!name.matches("[A-Za-z0-9._-]{1,63}")) {
            throw new ConfigException("--replica '" + name + "': use 1 to 63 letters, digits, '.', '_' or '-'");
        }
        return new EtcdReplication(new Etcd(cluster.get()), name, timing, Clock.systemUTC());
    }

    private static String defaultReplicaName() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName().replaceAll("[^A-Za-z0-9._-]", "-");
        } catch (UnknownHostException e) {
            host = "replica";
        }
        String name = host + "-" + ProcessHandle.current().pid();
        return name.length() > 63 ? name.substring(name.length() - 63) : name;
    }

    private LogFormat logFormat() {
        return switch (logFormat.toLowerCase(Locale.ROOT)) {
            case "text" -> LogFormat.TEXT;
            case "json" -> LogFormat.JSON;
            default -> throw new ConfigException("--log-format '" + logFormat + "': use text or json");
        };
    }
}

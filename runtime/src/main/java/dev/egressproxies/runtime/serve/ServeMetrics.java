package dev.egressproxies.runtime.serve;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The service's Prometheus metrics, served at {@code /metrics} in the text format. Labels are of
 * low cardinality: entry, host, action, outcome and state, never an instance.
 */
final class ServeMetrics {
    private static final double[] PASS_BUCKETS = {0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
    private static final double[] OPERATION_BUCKETS = {0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600};

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
    private final Counter passes = Counter.builder().name("egress_reconcile_passes_total")
            .help("Reconcile passes of an entry, by outcome (ok: every zone answered; partial: some did not)")
            .labelNames("entry", "outcome").register(registry);
    private final Histogram passSeconds = Histogram.builder().name("egress_reconcile_pass_duration_seconds")
            .help("How long a reconcile pass took, from listing to queuing its operations")
            .labelNames("entry").classicOnly().classicUpperBounds(PASS_BUCKETS).register(registry);
    private final Counter operations = Counter.builder().name("egress_operations_total")
            .help("Operations on proxies, by action (create, start, replace, delete) and outcome")
            .labelNames("entry", "action", "outcome").register(registry);
    private final Histogram operationSeconds = Histogram.builder().name("egress_operation_duration_seconds")
            .help("How long an operation on a proxy took").labelNames("entry", "action")
            .classicOnly().classicUpperBounds(OPERATION_BUCKETS).register(registry);
    private final Gauge proxies = Gauge.builder().name("egress_proxies")
            .help("Proxies by the state serve last saw (ABSENT: to be created; UNKNOWN: its host does not answer)")
            .labelNames("entry", "state").register(registry);
    private final Gauge hostUp = Gauge.builder().name("egress_host_link_up")
            .help("1 while the host (zone) of an entry answered its last listing, else 0")
            .labelNames("entry", "host").register(registry);
    private final Counter backoffs = Counter.builder().name("egress_backoffs_total")
            .help("Failed operations after which a proxy waits out a backoff").labelNames("entry").register(registry);
    private final Gauge backingOff = Gauge.builder().name("egress_proxies_backing_off")
            .help("Proxies waiting out a backoff now").labelNames("entry").register(registry);
    private final Gauge heldDeletes = Gauge.builder().name("egress_deletes_held")
            .help("Deletes held back by the mass-delete rule until an operator confirms them")
            .labelNames("entry").register(registry);
    private final Counter desiredLoads = Counter.builder().name("egress_desired_set_loads_total")
            .help("Reads of the desired-set file, by outcome (rejected: the last good set stays in force)")
            .labelNames("outcome").register(registry);

    void pass(String entry, boolean complete, Duration took) {
        passes.labelValues(entry, complete ? "ok" : "partial").inc();
        passSeconds.labelValues(entry).observe(seconds(took));
    }

    void operation(String entry, String action, Outcome outcome, Duration took) {
        operations.labelValues(entry, action, outcome.label()).inc();
        operationSeconds.labelValues(entry, action).observe(seconds(took));
        if (outcome == Outcome.FAILED) {
            backoffs.labelValues(entry).inc();
        }
    }

    void proxies(String entry, Map<ProxyState, Integer> counts, int inBackoff, int held) {
        for (ProxyState state : ProxyState.values()) {
            proxies.labelValues(entry, state.name().toLowerCase(Locale.ROOT)).set(counts.getOrDefault(state, 0));
        }
        backingOff.labelValues(entry).set(inBackoff);
        heldDeletes.labelValues(entry).set(held);
    }

    void hostLink(String entry, String host, boolean up) {
        hostUp.labelValues(entry, host).set(up ? 1 : 0);
    }

    void desiredLoad(boolean accepted) {
        desiredLoads.labelValues(accepted ? "accepted" : "rejected").inc();
    }

    /**
     * The metrics of a replica: {@code egress_entry_leading} (1 for each entry of the desired set
     * this replica leads and may act on, else 0) and {@code egress_replica_stale} (1 while etcd does
     * not answer it), read when scraped.
     */
    void replication(Supplier<List<String>> entries, EntryAuthority authority, FleetPeers peers) {
        GaugeWithCallback.builder().name("egress_entry_leading")
                .help("1 for each entry of the desired set this replica leads and may act on, else 0")
                .labelNames("entry").callback(callback -> entries.get().forEach(entry ->
                        callback.call(authority.mayAct(entry) ? 1 : 0, entry))).register(registry);
        GaugeWithCallback.builder().name("egress_replica_stale")
                .help("1 while etcd does not answer this replica: it acts on nothing and shows what it knew")
                .callback(callback -> callback.call(peers.stale().isPresent() ? 1 : 0)).register(registry);
    }

    /** The content type of {@link #write}. */
    String contentType() {
        return writer.getContentType();
    }

    /** Writes every metric in the Prometheus text format. */
    void write(OutputStream out) throws IOException {
        writer.write(out, registry.scrape());
    }

    private static double seconds(Duration duration) {
        return duration.toNanos() / 1e9;
    }
}

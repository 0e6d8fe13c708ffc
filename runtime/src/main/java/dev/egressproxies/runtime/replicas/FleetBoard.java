package dev.egressproxies.runtime.replicas;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.egressproxies.runtime.serve.FleetPeers;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * The whole fleet on every replica: each leader publishes the entries it leads to
 * {@code PREFIX/status/ENTRY} (the entry and its proxies, as its API shows them), and every replica
 * reads the others' and shows them beside its own. Publishing is checked every second, and happens
 * when an entry's document changed beyond the times of the last look, or every 30 s; reading, when
 * a watch says a document changed, and every ten seconds anyway.
 *
 * <p>A document stays after its leader is gone, naming that leader; while another replica leads
 * the entry, or while etcd does not answer this replica, what it shows is marked stale.
 */
public final class FleetBoard implements FleetPeers, AutoCloseable {
    private static final Duration TICK = Duration.ofSeconds(1);
    private static final Duration REREAD = Duration.ofSeconds(10);
    /** How often an unchanged document is published anyway, so that its times of the last look stay recent. */
    private static final Duration REFRESH = Duration.ofSeconds(30);

    private final Etcd etcd;
    private final Leadership leadership;
    private final Function<String, Optional<ObjectNode>> snapshots;
    private final ToLongFunction<String> changes;
    private final Clock clock;
    private final ObjectMapper json = new ObjectMapper();
    private final Map<String, Published> lastPublished = new HashMap<>();
    private final AtomicBoolean changed = new AtomicBoolean(true);
    private final AtomicLong version = new AtomicLong();
    private volatile Map<String, ObjectNode> others = Map.of();
    private volatile Map<String, JsonNode> replicas = Map.of();
    private volatile Optional<String> stale = Optional.empty();
    private volatile Instant unreachableSince;
    private long lastRead;
    private ScheduledFuture<?> ticking;
    private AutoCloseable watch;

    /** What was last published of an entry, without its times of looks, at which change, and when. */
    private record Published(String content, long change, long atNanos) {
    }

    /**
     * @param snapshots the document of an entry this replica leads, as {@code Reconciler.snapshot} makes it
     * @param changes   a number that changes whenever an entry's proxies change beyond the times of looks
     */
    public FleetBoard(Etcd etcd, Leadership leadership, Function<String, Optional<ObjectNode>> snapshots,
                      ToLongFunction<String> changes, Clock clock) {
        this.etcd = etcd;
        this.leadership = leadership;
        this.snapshots = snapshots;
        this.changes = changes;
        this.clock = clock;
    }

    /** Starts publishing and reading on {@code timer}. */
    public void start(ScheduledExecutorService timer) {
        watch = etcd.watchPrefix(statusPrefix(), () -> changed.set(true));
        ticking = timer.scheduleWithFixedDelay(this::tick, 0, TICK.toMillis(), TimeUnit.MILLISECONDS);
    }

    private String statusPrefix() {
        return etcd.prefix() + "status/";
    }

    /** One second's work; an etcd failure marks what is shown stale until a call succeeds again. */
    void tick() {
        try {
            long now = System.nanoTime();
            // An entry led again after another replica published it is published anew.
            lastPublished.keySet().retainAll(leadership.led());
            for (String entry : leadership.led()) {
                if (leadership.mayAct(entry)) {
                    publish(entry, now);
                }
            }
            if (changed.getAndSet(false) || now - lastRead > REREAD.toNanos()) {
                read();
                lastRead = now;
            }
            markStale(null);
        } catch (EtcdException unreachable) {
            changed.set(true);
            markStale(unreachable.getMessage());
        } catch (RuntimeException unexpected) {
            markStale(String.valueOf(unexpected));
        }
    }

    /**
     * Publishes an entry's document when something other than the times of the last look changed
     * (a state, an outcome, an address), or when it was last published {@link #REFRESH} ago: a
     * pass that finds everything as it was costs no write. Stored gzipped, a tenth of the JSON.
     */
    private void publish(String entry, long now) {
        long change = changes.applyAsLong(entry);
        Published last = lastPublished.get(entry);
        boolean recent = last != null && now - last.atNanos() < REFRESH.toNanos();
        if (recent && change == last.change()) {
            return;
        }
        Optional<ObjectNode> snapshot = snapshots.apply(entry);
        if (snapshot.isEmpty()) {
            return;
        }
        String content = withoutTimesOfLooks(snapshot.get().deepCopy()).toString();
        if (recent && content.equals(last.content())) {
            lastPublished.put(entry, new Published(content, change, last.atNanos()));
            return;
        }
        ObjectNode document = snapshot.get().put("leader", leadership.replica())
                .put("publishedAt", clock.instant().toString());
        etcd.put(statusPrefix() + entry, gzip(document.toString().getBytes(StandardCharsets.UTF_8)), 0);
        lastPublished.put(entry, new Published(content, change, now));
    }

    private static ObjectNode withoutTimesOfLooks(ObjectNode snapshot) {
        snapshot.path("proxies").forEach(proxy -> ((ObjectNode) proxy).remove("lastReconcile"));
        ((ObjectNode) snapshot.path("entry")).remove("lastPass");
        snapshot.path("entry").path("hosts").forEach(host -> ((ObjectNode) host).remove("checkedAt"));
        return snapshot;
    }

    private static byte[] gzip(byte[] plain) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(plain.length / 8 + 64);
        try (GZIPOutputStream zip = new GZIPOutputStream(out)) {
            zip.write(plain);
        } catch (IOException e) {
            throw new UncheckedIOException("gzip into memory cannot fail", e);
        }
        return out.toByteArray();
    }

    private static byte[] gunzip(byte[] stored) throws IOException {
        try (GZIPInputStream zip = new GZIPInputStream(new ByteArrayInputStream(stored))) {
            return zip.readAllBytes();
        }
    }

    private void read() {
        Map<String, ObjectNode> read = new TreeMap<>();
        for (Etcd.KeyValue key : etcd.getPrefix(statusPrefix()).keys()) {
            try {
                JsonNode document = json.readTree(gunzip(key.bytes()));
                if (document instanceof ObjectNode object) {
                    read.put(key.key().substring(statusPrefix().length()), object);
                }
            } catch (IOException unreadable) {
                // Not a document a replica wrote; it is left out.
            }
        }
        Map<String, JsonNode> alive = new TreeMap<>();
        for (Etcd.KeyValue key : etcd.getPrefix(etcd.prefix() + "replicas/").keys()) {
            try {
                alive.put(key.key().substring((etcd.prefix() + "replicas/").length()), json.readTree(key.value()));
            } catch (IOException unreadable) {
                alive.put(key.key().substring((etcd.prefix() + "replicas/").length()), json.nullNode());
            }
        }
        others = Map.copyOf(read);
        replicas = Map.copyOf(alive);
        version.incrementAndGet();
    }

    private void markStale(String error) {
        Optional<String> now;
        if (error == null && leadership.reachable()) {
            unreachableSince = null;
            now = Optional.empty();
        } else {
            if (unreachableSince == null) {
                unreachableSince = clock.instant();
            }
            String why = error != null ? error : leadership.lastError();
            now = Optional.of("etcd has not answered this replica since " + unreachableSince + " (" + why
                    + "): what it shows is as of then, and no replica acts without etcd");
        }
        if (!now.equals(stale)) {
            stale = now;
            version.incrementAndGet();
        }
    }

    @Override
    public String replica() {
        return leadership.replica();
    }

    @Override
    public boolean showsOwn(String entry) {
        return leadership.led().contains(entry);
    }

    /** {@inheritDoc} A document whose publisher no longer leads its entry says so in {@code stale}. */
    @Override
    public Map<String, ObjectNode> published() {
        Map<String, String> leaders = leadership.leaders();
        Map<String, ObjectNode> shown = new TreeMap<>();
        for (Map.Entry<String, ObjectNode> published : others.entrySet()) {
            String entry = published.getKey();
            if (showsOwn(entry) || !leadership.wanted().contains(entry)) {
                continue;
            }
            ObjectNode document = published.getValue();
            String publisher = document.path("leader").asText();
            String leader = leaders.get(entry);
            if (leader == null || !leader.equals(publisher)) {
                document = document.deepCopy();
                ((ObjectNode) document.path("entry")).put("stale", "published by " + publisher + ", which no longer"
                        + " leads this entry; " + (leader == null ? "no replica leads it now" : leader + " leads it now"));
            }
            shown.put(entry, document);
        }
        return shown;
    }

    @Override
    public long version() {
        return version.get() * 31 + leadership.leaders().hashCode();
    }

    @Override
    public Optional<String> stale() {
        return stale;
    }

    @Override
    public Optional<ObjectNode> replicas() {
        ObjectNode document = json.createObjectNode().put("replica", leadership.replica())
                .put("stale", stale.orElse(null));
        Map<String, String> leaders = leadership.leaders();
        ArrayNode array = document.putArray("replicas");
        for (Map.Entry<String, JsonNode> replica : replicas.entrySet()) {
            ObjectNode node = array.addObject().put("name", replica.getKey());
            node.set("about", replica.getValue());
            ArrayNode leads = node.putArray("leads");
            leaders.forEach((entry, leader) -> {
                if (leader.equals(replica.getKey())) {
                    leads.add(entry);
                }
            });
        }
        ObjectNode entries = document.putObject("leaders");
        new TreeMap<>(leaders).forEach(entries::put);
        return Optional.of(document);
    }

    @Override
    public String leaderOf(String entry) {
        String leader = leadership.leaders().get(entry);
        if (leader == null) {
            return "no replica leads entry '" + entry + "' now";
        }
        String api = replicas.getOrDefault(leader, json.nullNode()).path("api").asText("");
        return "replica " + leader + " leads entry '" + entry + "'" + (api.isEmpty() ? "" : "; its API is at " + api);
    }

    @Override
    public void close() {
        if (ticking != null) {
            ticking.cancel(false);
        }
        try {
            if (watch != null) {
                watch.close();
            }
        } catch (Exception ignored) {
            // a daemon thread
        }
    }
}

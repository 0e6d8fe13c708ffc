package dev.egressproxies.runtime.replicas;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.egressproxies.api.Provider;
import dev.egressproxies.runtime.apply.DesiredState;
import dev.egressproxies.runtime.apply.ProxySetLoader;
import dev.egressproxies.runtime.config.ConfigException;
import dev.egressproxies.runtime.serve.DesiredSource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The desired set kept in etcd, under {@code PREFIX/desired}: one document that every replica
 * reads, written by {@code egressctl apply -f FILE --etcd ...}. Its revision is the key's etcd
 * revision, the same on every replica. The value holds the set with its user-data inline (no
 * replica can read the applying machine's files), the file it came from, who applied it and when.
 */
public final class EtcdDesiredSet implements DesiredSource {
    /** The revision shown while no set has been written yet: an empty set is in force. */
    public static final String NONE = "etcd:none";

    private final Etcd etcd;
    private final Function<String, Optional<Provider>> entries;
    private final Clock clock;
    private final ObjectMapper json = new ObjectMapper();
    private AutoCloseable watch;
    private volatile Loaded lastLoaded;

    /**
     * What {@link #write} wrote.
     *
     * @param key      the key
     * @param revision the etcd revision of the write
     * @param sha256   the digest of the set as stored
     */
    public record Written(String key, long revision, String sha256) {
    }

    /** The set in this cluster, checked against these entries. */
    public EtcdDesiredSet(Etcd etcd, Function<String, Optional<Provider>> entries, Clock clock) {
        this.etcd = etcd;
        this.entries = entries;
        this.clock = clock;
    }

    private String key() {
        return etcd.prefix() + "desired";
    }

    @Override
    public String location() {
        return "etcd:" + key();
    }

    @Override
    public boolean isFile() {
        return false;
    }

    /**
     * {@inheritDoc} No set written yet is an empty set ({@link #NONE}): replicas may start before
     * the first apply. A revision checked before is not read or checked again: the set is
     * self-contained and the entries it was checked against do not change while serve runs.
     *
     * @throws EtcdException when no member answers
     */
    @Override
    public Loaded load() {
        Loaded last = lastLoaded;
        if (last != null && etcd.stat(key()).map(EtcdDesiredSet::revisionOf).orElse(NONE).equals(last.revision())) {
            return last;
        }
        Instant at = clock.instant();
        Optional<Etcd.KeyValue> stored = etcd.get(key()).first();
        if (stored.isEmpty()) {
            return remember(new Loaded(new DesiredState(new LinkedHashSet<>(), List.of()), NONE, at));
        }
        JsonNode envelope = envelope(stored.get());
        byte[] set = envelope.path("set").toString().getBytes(StandardCharsets.UTF_8);
        DesiredState state = new ProxySetLoader().load(location() + " (applied from " + envelope.path("file").asText()
                + ")", set, entries);
        return remember(new Loaded(state, revisionOf(stored.get()), at));
    }

    private Loaded remember(Loaded loaded) {
        lastLoaded = loaded;
        return loaded;
    }

    @Override
    public String revision() {
        try {
            return etcd.stat(key()).map(EtcdDesiredSet::revisionOf).orElse(NONE);
        } catch (EtcdException unreachable) {
            return "";
        }
    }

    /** {@inheritDoc} A watch on the key's etcd prefix. */
    @Override
    public void watch(Runnable onChange) {
        watch = etcd.watchPrefix(key(), onChange);
    }

    /**
     * Checks a desired-set file against this machine's config, then writes it with its user-data
     * inline, as the set every replica keeps in force.
     *
     * @throws ConfigException listing every problem of the file; nothing is written
     * @throws EtcdException   when no member answers
     */
    public Written write(Path file) {
        String appliedBy = System.getProperty("user.name", "") + "@" + EtcdReplication.hostName() + " (pid "
                + ProcessHandle.current().pid() + ")";
        byte[] set = new ProxySetLoader().selfContained(file, entries);
        ObjectNode envelope = json.createObjectNode().put("file", file.toAbsolutePath().toString())
                .put("appliedBy", appliedBy).put("appliedAt", clock.instant().toString()).put("sha256", sha256(set));
        try {
            envelope.set("set", json.readTree(set));
        } catch (IOException e) {
            throw new IllegalStateException("the loader wrote JSON", e);
        }
        long revision = etcd.put(key(), envelope.toString(), 0);
        return new Written(key(), revision, envelope.path("sha256").asText());
    }

    private JsonNode envelope(Etcd.KeyValue stored) {
        try {
            JsonNode envelope = json.readTree(stored.value());
            if (envelope == null || !envelope.path("set").isObject()) {
                throw new ConfigException(location() + " holds no desired set egressctl wrote: write it with"
                        + " egressctl apply -f FILE --etcd ...");
            }
            return envelope;
        } catch (IOException e) {
            throw new ConfigException(location() + " is not JSON (" + e.getMessage() + "): write the desired set"
                    + " with egressctl apply -f FILE --etcd ...");
        }
    }

    private static String revisionOf(Etcd.KeyValue stored) {
        return "etcd:" + stored.modRevision();
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    @Override
    public void close() throws IOException {
        if (watch != null) {
            try {
                watch.close();
            } catch (Exception e) {
                throw new IOException(e);
            }
        }
    }
}

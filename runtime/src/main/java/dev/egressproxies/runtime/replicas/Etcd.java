package dev.egressproxies.runtime.replicas;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.egressproxies.runtime.config.ConfigException;
import dev.egressproxies.runtime.serve.PemKeyStore;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;

/**
 * An etcd v3 cluster, reached through the JSON gateway that every member serves on its client URL
 * ({@code /v3/kv/range}, {@code /v3/kv/txn}, {@code /v3/lease/...}, {@code /v3/watch}): the same
 * calls, leases and transactions as etcd's gRPC API, over the JDK's HTTP client. docs/replicas.md
 * says why this is not jetcd.
 *
 * <p>Every call goes to the member that answered last; a member that refuses, times out or fails
 * makes the call move on to the next, and only when none answers does the call fail, naming each
 * member's error. Reads are linearizable (etcd's default), so a read after a write sees it.
 */
public final class Etcd {
    /** How long one member may take to answer one call: a healthy cluster answers in milliseconds. */
    static final Duration CALL_TIMEOUT = Duration.ofMillis(1500);
    private static final Duration CONNECT_TIMEOUT = Duration.ofMillis(1000);
    private static final Base64.Encoder BASE64 = Base64.getEncoder();
    private static final Base64.Decoder UNBASE64 = Base64.getDecoder();

    private final EtcdOptions options;
    private final HttpClient http;
    private final ObjectMapper json = new ObjectMapper();
    private volatile int preferred;
    private volatile String token;

    /**
     * One key as etcd holds it.
     *
     * @param bytes the value as stored
     */
    public record KeyValue(String key, byte[] bytes, long createRevision, long modRevision, long lease) {
        /** The value as UTF-8 text. */
        public String value() {
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }

    /**
     * The keys a read found, and the cluster's revision when it read them.
     *
     * @param keys     the keys, in key order
     * @param revision the store's revision at the read
     */
    public record Range(List<KeyValue> keys, long revision) {
        /** The one key of an exact read, if it exists. */
        public Optional<KeyValue> first() {
            return keys.isEmpty() ? Optional.empty() : Optional.of(keys.get(0));
        }
    }

    /**
     * A client of the cluster; nothing is contacted until the first call.
     *
     * @throws ConfigException when the TLS files cannot be used
     */
    public Etcd(EtcdOptions options) {
        this.options = options;
        HttpClient.Builder builder = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(CONNECT_TIMEOUT);
        if (options.tls()) {
            builder.sslContext(sslContext(options));
        }
        this.http = builder.build();
    }

    /** The options this client was made with. */
    public EtcdOptions options() {
        return options;
    }

    /** The key prefix under which egressctl keeps its keys. */
    public String prefix() {
        return options.prefix();
    }

    /** Reads one key. */
    public Range get(String key) {
        return range(key, null);
    }

    /** Reads one key's revisions and lease without its value (a key whose value is large, unchanged). */
    public Optional<KeyValue> stat(String key) {
        ObjectNode request = json.createObjectNode().put("key", encode(key)).put("keys_only", true);
        return new Range(keyValues(call("/v3/kv/range", request).path("kvs")), 0).first();
    }

    /** Reads every key under a prefix. */
    public Range getPrefix(String prefix) {
        return range(prefix, prefixEnd(prefix));
    }

    private Range range(String key, String end) {
        ObjectNode request = json.createObjectNode().put("key", encode(key));
        if (end != null) {
            request.put("range_end", encode(end));
        }
        JsonNode response = call("/v3/kv/range", request);
        return new Range(keyValues(response.path("kvs")), response.path("header").path("revision").asLong());
    }

    /**
     * Writes a key.
     *
     * @param lease the lease the key lives with, or 0 for none
     * @return the revision of the write
     */
    public long put(String key, String value, long lease) {
        return put(key, value.getBytes(StandardCharsets.UTF_8), lease);
    }

    /**
     * Writes a key whose value is bytes (a compressed document).
     *
     * @param lease the lease the key lives with, or 0 for none
     * @return the revision of the write
     */
    public long put(String key, byte[] value, long lease) {
        ObjectNode request = json.createObjectNode().put("key", encode(key)).put("value",
                BASE64.encodeToString(value));
        if (lease != 0) {
            request.put("lease", Long.toString(lease));
        }
        return call("/v3/kv/put", request).path("header").path("revision").asLong();
    }

    /**
     * Creates a key bound to a lease, only if no such key exists: the one atomic step of taking
     * leadership.
     *
     * @return whether this call created it
     */
    public boolean create(String key, String value, long lease) {
        ObjectNode request = json.createObjectNode();
        request.putArray("compare").addObject().put("key", encode(key)).put("target", "CREATE")
                .put("result", "EQUAL").put("create_revision", "0");
        request.putArray("success").addObject().putObject("request_put").put("key", encode(key))
                .put("value", encode(value)).put("lease", Long.toString(lease));
        return call("/v3/kv/txn", request).path("succeeded").asBoolean(false);
    }

    /**
     * Deletes a key only while it is bound to this lease: giving up leadership never deletes a
     * successor's key.
     *
     * @return whether this call deleted it
     */
    public boolean deleteIfLease(String key, long lease) {
        ObjectNode request = json.createObjectNode();
        request.putArray("compare").addObject().put("key", encode(key)).put("target", "LEASE")
                .put("result", "EQUAL").put("lease", Long.toString(lease));
        request.putArray("success").addObject().putObject("request_delete_range").put("key", encode(key));
        return call("/v3/kv/txn", request).path("succeeded").asBoolean(false);
    }

    /**
     * Grants a lease.
     *
     * @return its ID
     */
    public long grantLease(Duration ttl) {
        JsonNode response = call("/v3/lease/grant", json.createObjectNode().put("TTL", Long.toString(ttl.toSeconds())));
        long id = response.path("ID").asLong();
        if (id == 0) {
            throw new EtcdException("etcd granted no lease: " + response);
        }
        return id;
    }

    /**
     * Renews a lease to its full time to live.
     *
     * @return the seconds it now lives, 0 when it has expired or was revoked (its keys are gone)
     */
    public long keepAlive(long lease) {
        return call("/v3/lease/keepalive", json.createObjectNode().put("ID", Long.toString(lease)))
                .path("result").path("TTL").asLong(0);
    }

    /** Revokes a lease, which deletes every key bound to it at once. */
    public void revoke(long lease) {
        call("/v3/lease/revoke", json.createObjectNode().put("ID", Long.toString(lease)));
    }

    /**
     * Watches a prefix on a daemon thread: {@code onChange} runs after every batch of changes, and
     * once whenever the watch is (re)connected, since changes may have been missed meanwhile. The
     * watch reconnects to the next member after a failure, a second later.
     *
     * @return a handle that stops the watch
     */
    public AutoCloseable watchPrefix(String prefix, Runnable onChange) {
        PrefixWatch watch = new PrefixWatch(prefix, onChange);
        Thread thread = new Thread(watch, "etcd-watch");
        thread.setDaemon(true);
        thread.start();
        return watch;
    }

    /** A watch of one prefix; see {@link #watchPrefix}. */
    private final class PrefixWatch implements Runnable, AutoCloseable {
        private final String prefix;
        private final Runnable onChange;
        private final AtomicLong seen = new AtomicLong();
        private volatile boolean closed;
        private volatile InputStream open;

        PrefixWatch(String prefix, Runnable onChange) {
            this.prefix = prefix;
            this.onChange = onChange;
        }

        @Override
        public void run() {
            while (!closed) {
                URI member = options.endpoints().get(preferred);
                try {
                    ObjectNode create = json.createObjectNode();
                    create.putObject("create_request").put("key", encode(prefix)).put("range_end",
                            encode(prefixEnd(prefix))).put("start_revision", Long.toString(seen.get() + 1));
                    HttpRequest request = request(member, "/v3/watch", create).timeout(CALL_TIMEOUT).build();
                    HttpResponse<InputStream> response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
                    open = response.body();
                    try (MappingIterator<JsonNode> messages = json.readerFor(JsonNode.class).readValues(open)) {
                        while (!closed && messages.hasNextValue()) {
                            JsonNode result = messages.nextValue().path("result");
                            long revision = result.path("header").path("revision").asLong();
                            if (result.path("created").asBoolean(false) || result.path("events").size() > 0) {
                                seen.accumulateAndGet(revision, Math::max);
                                onChange.run();
                            }
                            if (result.path("compact_revision").asLong() > 0) {
                                // Changes were compacted away: start from now, the caller reads everything anew.
                                seen.set(result.path("compact_revision").asLong());
                                break;
                            }
                        }
                    }
                } catch (IOException | RuntimeException failed) {
                    preferred = (options.endpoints().indexOf(member) + 1) % options.endpoints().size();
                } catch (InterruptedException interrupted) {
                    return;
                }
                if (!closed) {
                    sleep(Duration.ofSeconds(1));
                }
            }
        }

        @Override
        public void close() {
            closed = true;
            InputStream stream = open;
            if (stream != null) {
                try {
                    stream.close();
                } catch (IOException ignored) {
                    // the thread ends either way
                }
            }
        }
    }

    private JsonNode call(String path, ObjectNode body) {
        List<String> errors = new ArrayList<>();
        int members = options.endpoints().size();
        int first = preferred;
        for (int tried = 0; tried < members; tried++) {
            int index = (first + tried) % members;
            URI member = options.endpoints().get(index);
            try {
                JsonNode answer = send(member, path, body);
                preferred = index;
                return answer;
            } catch (EtcdException e) {
                if (e.refused()) {
                    throw new EtcdException("etcd member " + member + " refused " + path + ": " + e.getMessage(), true);
                }
                errors.add(member + ": " + failure(e));
            } catch (IOException e) {
                errors.add(member + ": " + failure(e));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new EtcdException("interrupted while calling etcd " + path);
            }
        }
        throw new EtcdException("no etcd member answered " + path + ": " + String.join("; ", errors));
    }

    private JsonNode send(URI member, String path, ObjectNode body) throws IOException, InterruptedException {
        if (options.user() != null && token == null) {
            authenticate(member);
        }
        HttpResponse<byte[]> response = http.send(request(member, path, body).timeout(CALL_TIMEOUT).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        JsonNode answer = answer(response.body());
        if (response.statusCode() != 200 && options.user() != null && answer.path("error").asText().contains("auth")) {
            // Tokens expire (etcd's simple tokens after 5 minutes idle); authenticate once more.
            authenticate(member);
            response = http.send(request(member, path, body).timeout(CALL_TIMEOUT).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            answer = answer(response.body());
        }
        if (response.statusCode() != 200) {
            String error = answer.path("error").asText(answer.path("message").asText(new String(response.body(),
                    StandardCharsets.UTF_8)));
            String hint = hint(error);
            throw new EtcdException("HTTP " + response.statusCode() + ", " + error + hint, !hint.isEmpty());
        }
        return answer;
    }

    /** A member's answer as JSON; one that is not (a plain-text refusal) becomes its {@code error}. */
    private JsonNode answer(byte[] body) {
        try {
            return json.readTree(body);
        } catch (IOException notJson) {
            return json.createObjectNode().put("error", new String(body, StandardCharsets.UTF_8).strip());
        }
    }

    private void authenticate(URI member) throws IOException, InterruptedException {
        ObjectNode login = json.createObjectNode().put("name", options.user()).put("password", options.password());
        HttpRequest request = HttpRequest.newBuilder(member.resolve("/v3/auth/authenticate"))
                .POST(HttpRequest.BodyPublishers.ofByteArray(json.writeValueAsBytes(login)))
                .header("Content-Type", "application/json").timeout(CALL_TIMEOUT).build();
        HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
        JsonNode answer = answer(response.body());
        if (response.statusCode() != 200 || answer.path("token").asText().isEmpty()) {
            throw new EtcdException("etcd refused --etcd-user " + options.user() + ": "
                    + answer.path("error").asText(answer.toString()) + "; check the user and --etcd-password-file",
                    response.statusCode() != 200);
        }
        token = answer.path("token").asText();
    }

    private static String failure(Exception e) {
        if (e instanceof ConnectException) {
            return "connection refused or unreachable (is the member running, and is this its client URL?)";
        }
        if (e instanceof HttpTimeoutException) {
            return "no answer within " + CALL_TIMEOUT.toMillis() + " ms";
        }
        if (e instanceof SSLException) {
            return "TLS failed (" + e.getMessage() + "): check --etcd-ca, --etcd-cert and --etcd-key";
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    private static String hint(String error) {
        if (error.contains("CommonName")) {
            return "; etcd's JSON gateway, which egressctl calls, refuses a client certificate with a CN: give"
                    + " --etcd-cert a certificate without CN (subject O=... only), and authenticate with"
                    + " --etcd-user and --etcd-password-file";
        }
        if (error.contains("permission denied")) {
            return "; the user (without --etcd-user, the client certificate's CN) needs readwrite on the key prefix:"
                    + " etcdctl role grant-permission ROLE --prefix readwrite PREFIX, or give --etcd-user and"
                    + " --etcd-password-file";
        }
        if (error.contains("user name is empty") || error.contains("token")) {
            return "; this cluster has authentication on: give --etcd-user and --etcd-password-file";
        }
        return "";
    }

    private HttpRequest.Builder request(URI member, String path, ObjectNode body) throws IOException {
        HttpRequest.Builder builder = HttpRequest.newBuilder(member.resolve(path))
                .POST(HttpRequest.BodyPublishers.ofByteArray(json.writeValueAsBytes(body)))
                .header("Content-Type", "application/json");
        String current = token;
        if (current != null) {
            builder.header("Authorization", current);
        }
        return builder;
    }

    private static List<KeyValue> keyValues(JsonNode kvs) {
        List<KeyValue> keys = new ArrayList<>();
        if (kvs instanceof ArrayNode array) {
            for (JsonNode kv : array) {
                keys.add(new KeyValue(decode(kv.path("key").asText()), UNBASE64.decode(kv.path("value").asText()),
                        kv.path("create_revision").asLong(), kv.path("mod_revision").asLong(), kv.path("lease").asLong()));
            }
        }
        return keys;
    }

    /** The first key after every key that starts with {@code prefix}: etcd's range end of a prefix. */
    static String prefixEnd(String prefix) {
        byte[] bytes = prefix.getBytes(StandardCharsets.UTF_8);
        bytes[bytes.length - 1]++;
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static String encode(String text) {
        return BASE64.encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    private static String decode(String base64) {
        return new String(UNBASE64.decode(base64), StandardCharsets.UTF_8);
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static SSLContext sslContext(EtcdOptions options) {
        try {
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            if (options.ca() == null) {
                trust.init((KeyStore) null);
            } else {
                KeyStore authorities = KeyStore.getInstance("PKCS12");
                authorities.load(null, null);
                int index = 0;
                for (Certificate certificate : PemKeyStore.certificates(options.ca(), "--etcd-ca")) {
                    authorities.setCertificateEntry("ca-" + index++, certificate);
                }
                trust.init(authorities);
            }
            KeyManagerFactory keys = null;
            if (options.certificate() != null) {
                keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                keys.init(PemKeyStore.load(options.certificate(), "--etcd-cert", options.key(), "--etcd-key"),
                        PemKeyStore.PASSWORD);
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys == null ? null : keys.getKeyManagers(), trust.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new ConfigException("the etcd TLS options cannot be used: " + e.getMessage());
        }
    }
}

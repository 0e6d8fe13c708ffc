package dev.egressproxies.endtoend;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.egressproxies.kvm.common.teststack.StackScript;
import dev.egressproxies.kvm.common.teststack.TestStack;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/**
 * The etcd members of {@code scripts/test-stack.sh}, as its {@code env} file describes them
 * (docs/test-stack.md, "etcd"):
 *
 * <ul>
 *   <li>a cluster of three members, {@code egress-etcd-1} to {@code egress-etcd-3}, on
 *       {@code http://127.0.0.1:23791} to {@code :23793}: {@link #endpoints()}. Tests stop, kill
 *       and start its members through the script ({@link #stop}, {@link #kill}, {@link #start},
 *       {@link #stopAll}, {@link #startAll}); the data of a member survives all of them;
 *   <li>a single member with TLS and authentication, {@link #tls()}: it takes only clients with a
 *       certificate of the stack's CA, and only user {@code egress} (readwrite on {@code /egressctl/})
 *       may read or write.
 * </ul>
 *
 * <p>Tests read and write keys with {@code etcdctl} ({@link #get}, {@link #getPrefix}, {@link #put},
 * {@link #deletePrefix}, or {@link #etcdctl()} for anything else), to set up what the product
 * should find and to check what it wrote.
 *
 * <p>The members are shared by every test on this machine: a test that stops or kills members
 * must start them again when it ends, also when it fails ({@link #startAll()} in an
 * {@code @AfterEach}), and writes only under a key prefix of its own. Test runs that use the stack
 * hold {@code flock /tmp/egress-stack.lock}.
 */
public final class EtcdCluster {
    /** The members of the cluster, numbered from 1. */
    public static final int MEMBERS = 3;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static EtcdCluster loaded;

    /** Members 1 to {@link #MEMBERS}, for loops over them. */
    public static List<Integer> members() {
        return IntStream.rangeClosed(1, MEMBERS).boxed().toList();
    }

    private final List<String> endpoints;
    private final Tls tls;

    private EtcdCluster(List<String> endpoints, Tls tls) {
        this.endpoints = endpoints;
        this.tls = tls;
    }

    /**
     * The stack's etcd members, brought up with the rest of the stack on first use
     * ({@link TestStack#load()}).
     *
     * @throws AssertionError when etcd is not installed or the stack names no etcd members
     */
    public static synchronized EtcdCluster load() {
        if (loaded == null) {
            List<String> missing = List.of("etcd", "etcdctl").stream()
                    .filter(command -> findCommand(command).isEmpty()).toList();
            if (!missing.isEmpty()) {
                throw new AssertionError(String.join(" and ", missing) + " not found on the PATH: the test stack"
                        + " has no etcd members on this machine; run scripts/install-test-dependencies.sh (as"
                        + " root; Debian packages etcd-server and etcd-client), then scripts/test-stack.sh up");
            }
            TestStack stack = TestStack.load();
            List<String> endpoints = List.of(stack.value("EGRESS_TEST_ETCD_ENDPOINTS").split(","));
            if (endpoints.size() != MEMBERS) {
                throw new AssertionError("EGRESS_TEST_ETCD_ENDPOINTS names " + endpoints.size() + " members, not "
                        + MEMBERS + ": " + endpoints);
            }
            Tls tls = new Tls(stack.value("EGRESS_TEST_ETCD_TLS_ENDPOINT"),
                    Path.of(stack.value("EGRESS_TEST_ETCD_CA")),
                    Path.of(stack.value("EGRESS_TEST_ETCD_CLIENT_CERT")),
                    Path.of(stack.value("EGRESS_TEST_ETCD_CLIENT_KEY")),
                    stack.value("EGRESS_TEST_ETCD_USER"),
                    Path.of(stack.value("EGRESS_TEST_ETCD_PASSWORD_FILE")));
            loaded = new EtcdCluster(endpoints, tls);
        }
        return loaded;
    }

    /** The client URLs of members 1 to 3, like {@code http://127.0.0.1:23791}, in member order. */
    public List<String> endpoints() {
        return endpoints;
    }

    /** The client URLs comma-joined, as etcd clients take them in one argument. */
    public String endpointsArgument() {
        return String.join(",", endpoints);
    }

    /** The client URL of member {@code member} (1 to 3). */
    public String endpoint(int member) {
        return endpoints.get(checked(member) - 1);
    }

    /** Stops member {@code member} (1 to 3) with SIGTERM and waits until it is gone. */
    public void stop(int member) {
        StackScript.run("etcd-stop", Integer.toString(checked(member)));
    }

    /** Kills member {@code member} (1 to 3) with SIGKILL and waits until it is gone. */
    public void kill(int member) {
        StackScript.run("etcd-kill", Integer.toString(checked(member)));
    }

    /**
     * Starts member {@code member} (1 to 3) again on its data, if it is not running. When a quorum
     * runs with it (two of the three), returns once it is healthy; started alone, it cannot serve,
     * and this returns once it listens.
     */
    public void start(int member) {
        StackScript.run("etcd-start", Integer.toString(checked(member)));
    }

    /** Stops all three members with SIGTERM and waits until they are gone. */
    public void stopAll() {
        StackScript.run("etcd-stop", "all");
    }

    /** Starts the members that are not running and waits until the cluster is healthy; quick when it is. */
    public void startAll() {
        StackScript.run("etcd-start", "all");
    }

    /**
     * The members that answer a linearizable read now (etcdctl's {@code endpoint health}, which
     * takes a leader): a member that is stopped, or cut off from a quorum, is not among them.
     */
    public Set<Integer> healthyMembers() {
        Result health = etcdctl().withTimeouts(Duration.ofMillis(500), Duration.ofSeconds(1))
                .run("endpoint", "health", "--write-out=json");
        Set<Integer> healthy = new TreeSet<>();
        try {
            for (JsonNode endpoint : JSON.readTree(health.out())) {
                int index = endpoints.indexOf(endpoint.path("endpoint").asText());
                if (index >= 0 && endpoint.path("health").asBoolean()) {
                    healthy.add(index + 1);
                }
            }
        } catch (IOException e) {
            throw new AssertionError("etcdctl's answer is not JSON: " + health, e);
        }
        return healthy;
    }

    /**
     * The member that leads the cluster now, as the first member to answer says (etcdctl's
     * {@code endpoint status}); empty while none leads, or none answers.
     */
    public OptionalInt leader() {
        Result status = etcdctl().withTimeouts(Duration.ofMillis(500), Duration.ofSeconds(1))
                .run("endpoint", "status", "--write-out=json");
        try {
            for (JsonNode endpoint : JSON.readTree(status.out())) {
                // Member IDs are unsigned 64-bit numbers: compared as text.
                String leader = endpoint.path("Status").path("leader").asText();
                for (JsonNode other : JSON.readTree(status.out())) {
                    if (other.path("Status").path("header").path("member_id").asText().equals(leader)) {
                        int index = endpoints.indexOf(other.path("Endpoint").asText());
                        if (index >= 0) {
                            return OptionalInt.of(index + 1);
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new AssertionError("etcdctl's answer is not JSON: " + status, e);
        }
        return OptionalInt.empty();
    }

    /**
     * Waits until every member is healthy ({@link #healthyMembers()}).
     *
     * @throws AssertionError naming the unhealthy members when {@code timeout} passes first
     */
    public void awaitHealthy(Duration timeout) {
        awaitHealthyMembers(MEMBERS, timeout);
    }

    /**
     * Waits until a quorum, two of the three members, is healthy: the cluster has a leader and
     * takes writes. After a leader is killed the others need an election timeout or two (1 to 2 s)
     * for that, and a write sent meanwhile can hang until its timeout; after {@link #stop} the
     * leader has handed its leadership over first.
     *
     * @throws AssertionError naming the healthy members when {@code timeout} passes first
     */
    public void awaitQuorum(Duration timeout) {
        awaitHealthyMembers(MEMBERS / 2 + 1, timeout);
    }

    private void awaitHealthyMembers(int wanted, Duration timeout) {
        long end = System.nanoTime() + timeout.toNanos();
        Set<Integer> healthy;
        do {
            healthy = healthyMembers();
            if (healthy.size() >= wanted) {
                return;
            }
            sleep(100);
        } while (System.nanoTime() < end);
        throw new AssertionError("after " + timeout + " only etcd members " + healthy + " of " + members()
                + " are healthy, not " + wanted + "; see " + TestStack.load().value("EGRESS_TEST_STACK_DIR")
                + "/etcd/egress-etcd-N/etcd.log");
    }

    /** The single member with TLS, client certificates and authentication. */
    public Tls tls() {
        return tls;
    }

    /** etcdctl on all three members. */
    public Etcdctl etcdctl() {
        return new Etcdctl(List.of("--endpoints=" + endpointsArgument()));
    }

    /** etcdctl on member {@code member} (1 to 3) alone. */
    public Etcdctl etcdctl(int member) {
        return new Etcdctl(List.of("--endpoints=" + endpoint(member)));
    }

    /** The value of {@code key}, read from the cluster; empty when there is no such key. */
    public Optional<String> get(String key) {
        return etcdctl().get(key);
    }

    /** The keys under {@code prefix} and their values, in key order. */
    public Map<String, String> getPrefix(String prefix) {
        return etcdctl().getPrefix(prefix);
    }

    /** Writes {@code key}. */
    public void put(String key, String value) {
        etcdctl().put(key, value);
    }

    /** Deletes the keys under {@code prefix}; returns how many there were. */
    public long deletePrefix(String prefix) {
        return etcdctl().deletePrefix(prefix);
    }

    private static int checked(int member) {
        if (member < 1 || member > MEMBERS) {
            throw new IllegalArgumentException("the etcd cluster has members 1 to " + MEMBERS + ", not " + member);
        }
        return member;
    }

    /**
     * How to reach the TLS member: its URL, the CA that signed its certificate, the client
     * certificate and its key (unencrypted PKCS#8 PEM), and the user with the file that holds its
     * password (no trailing newline). The client certificate's name is no etcd user: presented
     * alone it authenticates, but grants nothing.
     */
    public record Tls(String endpoint, Path ca, Path cert, Path key, String user, Path passwordFile) {
        /** The user's password. */
        public String password() {
            try {
                return Files.readString(passwordFile, StandardCharsets.UTF_8).strip();
            } catch (IOException e) {
                throw new UncheckedIOException("reading " + passwordFile, e);
            }
        }

        /** etcdctl with everything the member asks for: CA, client certificate, user and password. */
        public Etcdctl etcdctl() {
            return new Etcdctl(List.of("--endpoints=" + endpoint, "--cacert=" + ca, "--cert=" + cert,
                    "--key=" + key, "--user=" + user, "--password=" + password()));
        }
    }

    /** What one etcdctl run did. */
    public record Result(List<String> command, int exitCode, String out, String err, Duration took) {
        public boolean ok() {
            return exitCode == 0;
        }

        @Override
        public String toString() {
            return String.join(" ", command) + " exited with " + exitCode + " after " + took.toMillis() + " ms\n"
                    + out + err;
        }
    }

    /**
     * {@code etcdctl} (v3 API) with a fixed set of connection flags and timeouts (by default a dial
     * timeout of 2 s and a command timeout of 5 s). The process gets no {@code ETCDCTL_*}
     * variable of this JVM's environment but {@code ETCDCTL_API=3}.
     */
    public static final class Etcdctl {
        private final List<String> connection;
        private final Duration dialTimeout;
        private final Duration commandTimeout;

        /** etcdctl with {@code connection}, flags such as {@code --endpoints=URL} or {@code --cacert=FILE}. */
        public Etcdctl(List<String> connection) {
            this(connection, Duration.ofSeconds(2), Duration.ofSeconds(5));
        }

        private Etcdctl(List<String> connection, Duration dialTimeout, Duration commandTimeout) {
            this.connection = List.copyOf(connection);
            this.dialTimeout = dialTimeout;
            this.commandTimeout = commandTimeout;
        }

        /** The same with other timeouts: short ones make a call to an unreachable cluster fail fast. */
        public Etcdctl withTimeouts(Duration dial, Duration command) {
            return new Etcdctl(connection, dial, command);
        }

        /** Runs {@code etcdctl CONNECTION TIMEOUTS ARGUMENTS}; whatever its exit code, returns what it did. */
        public Result run(String... arguments) {
            List<String> command = new ArrayList<>();
            command.add(findCommand("etcdctl").orElseThrow(
                    () -> new AssertionError("etcdctl not found; run scripts/install-test-dependencies.sh")).toString());
            command.addAll(connection);
            command.add("--dial-timeout=" + dialTimeout.toMillis() + "ms");
            command.add("--command-timeout=" + commandTimeout.toMillis() + "ms");
            command.addAll(Arrays.asList(arguments));
            long started = System.nanoTime();
            try {
                Path out = Files.createTempFile("etcdctl", ".out");
                Path err = Files.createTempFile("etcdctl", ".err");
                try {
                    ProcessBuilder builder = new ProcessBuilder(command)
                            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                            .redirectOutput(out.toFile()).redirectError(err.toFile());
                    builder.environment().keySet().removeIf(name -> name.startsWith("ETCDCTL_"));
                    builder.environment().put("ETCDCTL_API", "3");
                    Process process = builder.start();
                    long limit = dialTimeout.plus(commandTimeout).toSeconds() + 30;
                    if (!process.waitFor(limit, TimeUnit.SECONDS)) {
                        process.destroyForcibly();
                        throw new AssertionError(String.join(" ", command) + " did not finish in " + limit + " s");
                    }
                    return new Result(redacted(command), process.exitValue(),
                            Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8),
                            Duration.ofNanos(System.nanoTime() - started));
                } finally {
                    Files.deleteIfExists(out);
                    Files.deleteIfExists(err);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
        }

        /**
         * Runs etcdctl and returns its standard output.
         *
         * @throws AssertionError with etcdctl's output when it fails
         */
        public String call(String... arguments) {
            Result result = run(arguments);
            if (!result.ok()) {
                throw new AssertionError(result.toString());
            }
            return result.out();
        }

        /** The value of {@code key}; empty when there is no such key. */
        public Optional<String> get(String key) {
            Map<String, String> found = decode(call("get", "--write-out=json", "--", key));
            return Optional.ofNullable(found.get(key));
        }

        /** The keys under {@code prefix} and their values, in key order. */
        public Map<String, String> getPrefix(String prefix) {
            return decode(call("get", "--prefix", "--write-out=json", "--", prefix));
        }

        /** Writes {@code key}. */
        public void put(String key, String value) {
            call("put", "--", key, value);
        }

        /** Deletes the keys under {@code prefix}; returns how many there were. */
        public long deletePrefix(String prefix) {
            return Long.parseLong(call("del", "--prefix", "--", prefix).strip());
        }

        /** etcdctl's {@code -w json} answer to a get: keys and values in base64. */
        private static Map<String, String> decode(String json) {
            try {
                Map<String, String> values = new LinkedHashMap<>();
                for (JsonNode pair : JSON.readTree(json).path("kvs")) {
                    values.put(base64(pair.path("key")), base64(pair.path("value")));
                }
                return values;
            } catch (IOException e) {
                throw new AssertionError("etcdctl's answer is not JSON: " + json, e);
            }
        }

        private static String base64(JsonNode node) {
            return new String(Base64.getDecoder().decode(node.asText("")), StandardCharsets.UTF_8);
        }

        private static List<String> redacted(List<String> command) {
            return command.stream().map(part -> part.startsWith("--password=") ? "--password=***" : part).toList();
        }
    }

    private static Optional<Path> findCommand(String name) {
        String path = System.getenv().getOrDefault("PATH", "") + File.pathSeparator + "/usr/bin";
        return Arrays.stream(path.split(File.pathSeparator)).filter(folder -> !folder.isEmpty())
                .map(folder -> Path.of(folder, name)).filter(Files::isExecutable).findFirst();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}

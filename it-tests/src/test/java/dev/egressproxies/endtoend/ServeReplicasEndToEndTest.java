package dev.egressproxies.endtoend;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three {@code egressctl serve} replicas on the test stack's 3-member etcd cluster, each its own
 * process, sharing fake entries kept in state files whose operation log records which process did
 * what when: they share the entries, a killed or paused leader is replaced without two processes
 * acting on one entry at once, etcd losing a member interrupts nothing, etcd losing all stops every
 * replica until it is back, and a rolling restart loses and doubles nothing.
 *
 * <p>Leases are short here (6 s, renew deadline 4 s, retries every second) so that each failover
 * takes seconds; the defaults' figures are in docs/benchmarks.md.
 */
@Tag("integration")
class ServeReplicasEndToEndTest {
    private static final Duration LEASE = Duration.ofSeconds(6);
    private static final Duration CONVERGE = Duration.ofSeconds(60);
    private static final List<String> ENTRIES = List.of("lab-1", "lab-2", "lab-3");

    @TempDir
    Path temp;
    Path work;
    EgressctlProcess egressctl;
    EtcdCluster etcd;
    String prefix;
    final Map<String, ServeProcess> replicas = new LinkedHashMap<>();
    final Map<Long, Instant> killed = new HashMap<>();

    @BeforeEach
    void prepare() throws IOException {
        etcd = EtcdCluster.load();
        etcd.startAll();
        Path home = Files.createDirectories(temp.resolve("home"));
        work = Files.createDirectories(temp.resolve("work"));
        StringBuilder config = new StringBuilder("providers:\n");
        for (String entry : ENTRIES) {
            config.append("""
                      - name: %s
                        type: fake
                        zones: [zone-a]
                        stateFile: %s
                        operationLog: true
                        faults:
                          create: {latency: 1500ms}
                    """.formatted(entry, stateFile(entry)));
        }
        Path configFile = Files.writeString(work.resolve("egress.yaml"), config.toString());
        egressctl = new EgressctlProcess(home, work).with("EGRESS_CONFIG", configFile.toString())
                .withTimeout(Duration.ofSeconds(90));
        byte[] random = new byte[4];
        ThreadLocalRandom.current().nextBytes(random);
        prefix = "/egressctl/it-" + HexFormat.of().formatHex(random) + "/";
    }

    @AfterEach
    void stopReplicas() {
        replicas.values().forEach(ServeProcess::close);
        etcd.startAll();
    }

    private Path stateFile(String entry) {
        return temp.resolve("state").resolve(entry + ".json");
    }

    /** Writes a desired set of {@code perEntry} proxies in each of {@code entries}, through apply --etcd. */
    private void desire(int perEntry, List<String> entries) throws IOException {
        StringBuilder yaml = new StringBuilder("providers: " + entries + "\nproxies:\n");
        for (String entry : entries) {
            for (int index = 1; index <= perEntry; index++) {
                yaml.append("  - {name: p").append(index).append(", provider: ").append(entry)
                        .append(", zone: zone-a, machineType: small, image: debian-12}\n");
            }
        }
        Path file = Files.writeString(work.resolve("proxies.yaml"), yaml.toString());
        EgressctlProcess.Result applied = egressctl.run(etcdArguments("apply", "-f", file.toString()));
        assertThat(applied.exitCode()).as(applied.toString()).isZero();
    }

    private String[] etcdArguments(String... command) {
        List<String> arguments = new ArrayList<>(List.of(command));
        arguments.addAll(List.of("--etcd", etcd.endpointsArgument(), "--etcd-prefix", prefix));
        return arguments.toArray(String[]::new);
    }

    private ServeProcess startReplica(String name) {
        ServeProcess replica = ServeProcess.start(egressctl, etcdArguments("serve", "--replica", name, "--listen",
                "127.0.0.1:0", "--resync", "5s", "--grace", "20s", "--lease-duration", LEASE.toSeconds() + "s",
                "--renew-deadline", "4s", "--retry-period", "1s"));
        replicas.put(name, replica);
        return replica;
    }

    private void startThree() {
        for (String name : List.of("r1", "r2", "r3")) {
            startReplica(name);
        }
    }

    /** Waits until {@code replica}'s API shows every proxy of the set RUNNING, none stale. */
    private JsonNode awaitConverged(ServeProcess replica, int proxies) {
        return replica.await("/v1/proxies", CONVERGE, proxies + " proxies running", document ->
                document.path("stale").isNull() && document.path("proxies").size() == proxies
                        && StreamSupport.stream(document.path("proxies").spliterator(), false)
                        .allMatch(proxy -> proxy.path("state").asText().equals("RUNNING")));
    }

    /** The leader of each entry, as {@code replica} sees them. */
    private Map<String, String> leaders(ServeProcess replica) {
        Map<String, String> leaders = new HashMap<>();
        replica.get("/v1/replicas").path("leaders").fields().forEachRemaining(field ->
                leaders.put(field.getKey(), field.getValue().asText()));
        return leaders;
    }

    /** Waits until the three replicas lead one entry each: the hand-overs of a staggered start are done. */
    private void awaitOneEntryEach() {
        replicas.get("r1").await("/v1/replicas", Duration.ofSeconds(60), "one entry per replica", document -> {
            Map<String, Integer> counts = new HashMap<>();
            document.path("leaders").fields().forEachRemaining(field -> counts.merge(field.getValue().asText(), 1,
                    Integer::sum));
            return counts.size() == 3 && counts.values().stream().allMatch(count -> count == 1);
        });
    }

    private ServeProcess anotherThan(String name) {
        return replicas.entrySet().stream().filter(replica -> !replica.getKey().equals(name)
                && replica.getValue().process().isAlive()).findFirst().orElseThrow().getValue();
    }

    private void assertEachProxyOnceAndNoOverlap(String entry, int proxies) {
        List<FakeOperationLog.Operation> log = FakeOperationLog.read(stateFile(entry));
        FakeOperationLog.assertNoOverlapBetweenProcesses(log, killed);
        // A create killed after it wrote its instance has no end; its successor finds the instance.
        assertThat(FakeOperationLog.successfulCreates(log).values()).as("creates of %s: %s", entry, log)
                .allMatch(count -> count == 1);
        List<String> names = FakeOperationLog.instanceNames(stateFile(entry));
        assertThat(names).as("instances of %s", entry).hasSize(proxies).doesNotHaveDuplicates();
    }

    @Test
    void threeReplicasShareThreeEntriesAndEveryReplicaShowsTheWholeFleet() throws IOException {
        desire(10, ENTRIES);
        startThree();
        for (ServeProcess replica : replicas.values()) {
            JsonNode proxies = awaitConverged(replica, 30);
            assertThat(proxies.path("desiredRevision").asText()).startsWith("etcd:");
            assertThat(proxies.path("proxies")).allSatisfy(proxy ->
                    assertThat(proxy.path("leader").asText()).isIn("r1", "r2", "r3"));
        }
        awaitOneEntryEach();
        Map<String, String> leaders = leaders(replicas.get("r1"));
        assertThat(leaders).containsOnlyKeys(ENTRIES);
        assertThat(leaders.values()).as("each replica leads one of three entries: %s", leaders)
                .containsExactlyInAnyOrder("r1", "r2", "r3");
        JsonNode entries = replicas.get("r2").get("/v1/entries");
        assertThat(entries.path("entries")).hasSize(3).allSatisfy(entry ->
                assertThat(entry.path("leader").asText()).isEqualTo(leaders.get(entry.path("name").asText())));
        for (String entry : ENTRIES) {
            assertEachProxyOnceAndNoOverlap(entry, 10);
        }
    }

    @Test
    void aLeaderKilledInTheMiddleOfACreateIsReplacedAndNothingIsMadeTwice() throws IOException {
        desire(10, List.of("lab-1", "lab-2"));
        startThree();
        awaitConverged(replicas.get("r1"), 20);
        String leader = leaders(replicas.get("r1")).get("lab-1");
        ServeProcess victim = replicas.get(leader);
        desire(20, List.of("lab-1", "lab-2"));
        long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (FakeOperationLog.read(stateFile("lab-1")).stream().noneMatch(operation -> operation.ended() == null
                && operation.pid() == victim.process().pid())) {
            assertThat(System.nanoTime()).as("a create by the leader %s of lab-1", leader).isLessThan(end);
            sleep(20);
        }
        victim.signal("KILL");
        Instant killedAt = Instant.now();
        killed.put(victim.process().pid(), killedAt);
        ServeProcess survivor = anotherThan(leader);
        awaitConverged(survivor, 40);
        assertEachProxyOnceAndNoOverlap("lab-1", 20);
        assertEachProxyOnceAndNoOverlap("lab-2", 20);
        Instant successor = FakeOperationLog.read(stateFile("lab-1")).stream()
                .filter(operation -> operation.pid() != victim.process().pid())
                .map(FakeOperationLog.Operation::started).filter(started -> started.isAfter(killedAt)).min(
                        Instant::compareTo).orElseThrow();
        Duration failover = Duration.between(killedAt, successor);
        System.out.println("[replicas] kill -9 of the leader of lab-1 to the successor's first create: "
                + failover.toMillis() + " ms (lease " + LEASE.toSeconds() + " s)");
        assertThat(failover).as("the successor waits for the lease to end").isGreaterThan(Duration.ofSeconds(2));
    }

    @Test
    void aPausedLeaderDoesNotActAfterItWakes() throws IOException {
        desire(5, List.of("lab-1", "lab-2"));
        startThree();
        awaitConverged(replicas.get("r1"), 10);
        String leader = leaders(replicas.get("r1")).get("lab-2");
        ServeProcess paused = replicas.get(leader);
        paused.signal("STOP");
        Instant pausedAt = Instant.now();
        desire(8, List.of("lab-1", "lab-2"));
        ServeProcess survivor = anotherThan(leader);
        awaitConverged(survivor, 16);
        sleep(LEASE.multipliedBy(2).minus(Duration.between(pausedAt, Instant.now())).toMillis());
        paused.signal("CONT");
        // Woken, it finds its lease gone: it must not act, while its successor goes on.
        sleep(3000);
        desire(9, List.of("lab-1", "lab-2"));
        awaitConverged(survivor, 18);
        List<FakeOperationLog.Operation> log = FakeOperationLog.read(stateFile("lab-2"));
        assertThat(log).filteredOn(operation -> operation.pid() == paused.process().pid())
                .as("operations by the paused leader")
                .allMatch(operation -> operation.started().isBefore(pausedAt));
        assertThat(log).filteredOn(operation -> operation.started().isAfter(pausedAt))
                .as("operations after the pause, all by its successor").isNotEmpty()
                .allMatch(operation -> operation.pid() != paused.process().pid());
        assertEachProxyOnceAndNoOverlap("lab-2", 9);
        assertThat(paused.err()).contains("no longer leading entry");
        assertThat(paused.process().isAlive()).as("the woken replica keeps serving").isTrue();
    }

    @Test
    void losingOneEtcdMemberInterruptsNothing() throws IOException {
        desire(5, ENTRIES);
        startThree();
        awaitConverged(replicas.get("r1"), 15);
        awaitOneEntryEach();
        Map<String, String> before = leaders(replicas.get("r1"));
        Map<String, Integer> logged = new HashMap<>();
        replicas.forEach((name, replica) -> logged.put(name, replica.err().length()));
        etcd.stop(1);
        try {
            desire(8, ENTRIES);
            awaitConverged(replicas.get("r3"), 24);
            sleep(LEASE.toMillis());
            assertThat(leaders(replicas.get("r2"))).as("leaders with a member down").isEqualTo(before);
            // Entries handed over while the replicas started are no interruption; only what came after counts.
            replicas.forEach((name, replica) -> assertThat(replica.err().substring(logged.get(name)))
                    .as("%s's log while a member was down", name).doesNotContain("no longer leading entry"));
        } finally {
            etcd.start(1);
        }
        for (String entry : ENTRIES) {
            assertEachProxyOnceAndNoOverlap(entry, 8);
        }
    }

    @Test
    void losingAllEtcdMembersStopsEveryReplicaAndWorkResumesWhenEtcdIsBack() throws IOException {
        desire(4, List.of("lab-1", "lab-2"));
        startThree();
        awaitConverged(replicas.get("r1"), 8);
        etcd.stopAll();
        Instant down = Instant.now();
        try {
            for (ServeProcess replica : replicas.values()) {
                replica.await("/v1/proxies", Duration.ofSeconds(20), "reads marked stale",
                        document -> !document.path("stale").isNull());
            }
            sleep(Duration.ofSeconds(5).toMillis());
            // Behind the replicas' backs: none may heal it while etcd is down.
            EgressctlProcess.Result deleted = egressctl.run("delete", "lab-1/zone-a/p1");
            assertThat(deleted.exitCode()).as(deleted.toString()).isZero();
            sleep(Duration.ofSeconds(8).toMillis());
            assertThat(FakeOperationLog.read(stateFile("lab-1"))).filteredOn(operation ->
                    operation.operation().equals("create") && operation.started().isAfter(down))
                    .as("creates while etcd was down").isEmpty();
            JsonNode stale = replicas.get("r2").get("/v1/proxies");
            assertThat(stale.path("stale").asText()).contains("etcd has not answered");
            assertThat(stale.path("proxies")).isNotEmpty();
        } finally {
            etcd.startAll();
        }
        // The replicas' views may show p1 as last published until a leader's pass: wait for the create itself.
        long end = System.nanoTime() + CONVERGE.toNanos();
        while (FakeOperationLog.read(stateFile("lab-1")).stream().noneMatch(operation -> remadeSince(operation, down))) {
            assertThat(System.nanoTime()).as("p1 made again once etcd is back").isLessThan(end);
            sleep(200);
        }
        awaitConverged(replicas.get("r3"), 8);
        assertThat(FakeOperationLog.read(stateFile("lab-1"))).filteredOn(operation -> remadeSince(operation, down))
                .as("p1 made again once etcd is back").hasSize(1);
        FakeOperationLog.assertNoOverlapBetweenProcesses(FakeOperationLog.read(stateFile("lab-1")), killed);
    }

    @Test
    void aRollingRestartLosesAndDoublesNothing() throws IOException {
        desire(6, ENTRIES);
        startThree();
        awaitConverged(replicas.get("r1"), 18);
        int perEntry = 6;
        for (String name : List.of("r1", "r2", "r3")) {
            perEntry += 2;
            desire(perEntry, ENTRIES);
            ServeProcess old = replicas.get(name);
            old.signal("TERM");
            EgressctlProcess.Result stopped = old.awaitExit(Duration.ofSeconds(60));
            assertThat(stopped.exitCode()).as(stopped.toString()).isZero();
            startReplica(name);
        }
        awaitConverged(replicas.get("r2"), perEntry * 3);
        for (String entry : ENTRIES) {
            assertEachProxyOnceAndNoOverlap(entry, perEntry);
        }
    }

    private static boolean remadeSince(FakeOperationLog.Operation operation, Instant since) {
        return operation.operation().equals("create") && operation.instance().endsWith("p1")
                && "ok".equals(operation.outcome()) && operation.started().isAfter(since);
    }

    private static void sleep(long millis) {
        if (millis <= 0) {
            return;
        }
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}

package dev.egressproxies.integration.kvm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.endtoend.EgressctlProcess;
import dev.egressproxies.kvm.common.teststack.Commands;
import dev.egressproxies.kvm.common.teststack.TestStack;
import dev.egressproxies.kvm.common.teststack.Virsh;
import dev.egressproxies.runtime.cli.ExitCode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code kvm2} entry with two hosts as a fleet (issue #37), on the real stack's two libvirtds,
 * each step a separate {@code egressctl} process as users run it:
 * <ul>
 *   <li>two creates of one name in the two zones, started together, 20 times: each time one
 *       domain, one process succeeds and the other fails PERMANENT naming the first's ID (the name
 *       claim on the claims host makes them one at a time);</li>
 *   <li>a create SIGKILLed while it holds the name claim: {@code check} reports the claim stale,
 *       the next create of the name takes it over at once (its holder is known dead) and succeeds,
 *       and no claim is left;</li>
 *   <li>the overlay and seed a create cut off on one host left: {@code check} warns of them, and a
 *       create of the name on the other host removes them;</li>
 *   <li>the claims host's sshd killed: a create in the other zone is TRANSIENT naming the claims
 *       host, and nothing is made there;</li>
 *   <li>{@code apply} of six proxies without zone puts three on each host, the plan saying where
 *       and why; {@code create -v} without zone logs its choice;</li>
 *   <li>a host whose pool is too small for the disk (a 64 MiB tmpfs pool on the second libvirtd,
 *       1 GiB disks) gets nothing, and {@code -v} says it lacks pool space;</li>
 *   <li>{@code cordon}: creates without zone avoid the host, {@code list} and {@code check} show
 *       the cordon, a create naming the zone is TRANSIENT, {@code uncordon} lifts it;</li>
 *   <li>{@code drain} of a host with three proxies while {@code list} polls: no name is ever
 *       listed twice, and all three end up running on the other host.</li>
 * </ul>
 *
 * <p>The stack's image holds no operating system, so its domains run but never get an address:
 * {@code egressctl} reports them PROVISIONING (active, no address); "running" here is libvirt's
 * state. The entry's name is unique per test and starts with {@value NoKvmLeftovers#FAULT_PREFIX};
 * everything it makes on either host (instances, cached bases, name claims {@code ENTRY+NAME.claim}
 * and cordons {@code ENTRY+HOST.cordon}) starts with it and is removed after each test. What each
 * test saw is printed ({@code [fleet] ...}).
 */
@Tag("integration")
@ExtendWith(NoKvmLeftovers.class)
class Kvm2FleetEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String HOST = KvmTestConfig.HOST;
    private static final String HOST2 = KvmTestConfig.HOST2;
    private static final int PERMANENT = ExitCode.of(ErrorKind.PERMANENT);
    private static final int TRANSIENT = ExitCode.of(ErrorKind.TRANSIENT);
    private static final int RACE_ROUNDS = 20;
    /** Long enough for an apply of six creates; reached only when something hangs. */
    private static final Duration PROCESS_LIMIT = Duration.ofMinutes(5);

    private final TestStack stack = TestStack.load();
    private final String entry = NoKvmLeftovers.FAULT_PREFIX + "fleet-" + randomHex();

    @TempDir
    Path temp;

    @AfterEach
    void removeWhatTheEntryMade() {
        // Names claims and cordons are volumes ENTRY+NAME.claim and ENTRY+HOST.cordon in the claims
        // host's pool: they start with the entry's name like its instances and bases.
        StackHypervisors.removeNamed(stack, entry);
    }

    @Test
    void twoCreatesOfOneNameInTwoZonesMakeOneInstance() throws IOException {
        EgressctlProcess egressctl = egressctl(config());
        int waited = 0;
        List<String> winners = new ArrayList<>();
        long started = System.nanoTime();
        for (int round = 1; round <= RACE_ROUNDS; round++) {
            String name = entry + "-twin-" + round;
            EgressctlProcess.Running onFirst = egressctl.start(create(name, HOST, "-v"));
            EgressctlProcess.Running onSecond = egressctl.start(create(name, HOST2, "-v"));
            Map<String, EgressctlProcess.Result> byZone = new LinkedHashMap<>();
            byZone.put(HOST, onFirst.await());
            byZone.put(HOST2, onSecond.await());
            String all = "round " + round + ":\n" + byZone.values().stream().map(Object::toString)
                    .collect(Collectors.joining("\n"));

            List<String> holders = hostsWithDomain(name);
            assertThat(holders).as("hosts with a domain %s; %s", name, all).hasSize(1);
            String winnerZone = holders.get(0);
            String loserZone = winnerZone.equals(HOST) ? HOST2 : HOST;
            EgressctlProcess.Result winner = byZone.get(winnerZone);
            EgressctlProcess.Result loser = byZone.get(loserZone);
            assertThat(winner.exitCode()).as("the create in the zone that holds the domain; %s", all).isZero();
            assertThat(winner.out()).as(all).contains(qualified(winnerZone, name));
            assertThat(loser.exitCode()).as("the other create (PERMANENT); %s", all).isEqualTo(PERMANENT);
            assertThat(loser.err()).as("the other create names the existing ID; %s", all)
                    .contains(winnerZone + "/" + name).contains("is taken");
            if (loser.err().contains("waiting for the name claim")) {
                waited++;
            }
            winners.add(winnerZone);
            removeInstance(winnerZone, name);
        }
        report("race: %d rounds of two creates of one name in zones %s and %s, %.1f s; winners %s;"
                        + " the loser waited for the claim in %d rounds (the others found the name taken at once)",
                RACE_ROUNDS, HOST, HOST2, seconds(System.nanoTime() - started), count(winners), waited);
        assertThat(StackHypervisors.virsh(stack, HOST).volumesNamed(stack.pool(), entry))
                .as("claims left").noneMatch(volume -> volume.endsWith(".claim"));
    }

    @Test
    void aClaimOfAKilledCreateIsReportedStaleAndTakenOver() throws Exception {
        try (SlowImageServer slowServer = SlowImageServer.serve(stack.qcow2Image())) {
            // The create is cut off 30 s before the claim's timeout: the claim outlives the test's
            // steps, so only its dead holder can make it stale in time.
            KvmTestConfig config = config().image("slow", slowServer.url()).setting("claimTimeout", "90s");
            EgressctlProcess egressctl = egressctl(config);
            String name = entry + "-killed";
            String claim = entry + "+" + name + ".claim";
            Virsh claimsHost = StackHypervisors.virsh(stack, HOST);

            // Claimed on the first host, then fetching the slow image for the second one.
            slowServer.expect(16 * 1024);
            EgressctlProcess.Running killed = egressctl.start("create", name, "--zone", HOST2, "--machine-type",
                    KvmTestConfig.MACHINE_TYPE, "--image", "slow");
            assertThat(slowServer.awaitSent(Duration.ofSeconds(60))).as("the create fetches the slow image").isTrue();
            assertThat(claimsHost.volumesNamed(stack.pool(), claim)).as("the claim while the create fetches")
                    .containsExactly(claim);
            ProcessHandle jvm = killed.process().toHandle();
            assertThat(jvm.info().command().orElse("")).as("the process killed is the JVM (the launcher execs it)")
                    .endsWith("/java");
            killed.process().destroyForcibly();
            assertThat(killed.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
            long killedAt = System.nanoTime();
            assertThat(killed.process().exitValue()).as("exit status of the killed create").isEqualTo(128 + 9);
            assertThat(claimsHost.volumesNamed(stack.pool(), claim)).as("the claim after the kill")
                    .containsExactly(claim);
            assertThat(hostsWithDomain(name)).as("domains of the killed create").isEmpty();

            EgressctlProcess.Result check = egressctl.run("check", entry, "-o", "json");
            JsonNode claims = check(check, "name claims on claims host " + HOST);
            report("check after the kill: %s", claims);
            assertThat(claims.get("warning").asBoolean()).as(check.toString()).isTrue();
            assertThat(claims.get("detail").asText()).as(check.toString())
                    .contains(claim, "is stale (that process is gone)", "the next create or delete of its name takes it over");

            EgressctlProcess.Result again = egressctl.run(create(name, HOST2, "-v"));
            long recovered = System.nanoTime();
            expectSuccess(again);
            assertThat(again.out()).contains(qualified(HOST2, name));
            assertThat(again.err()).as(again.toString()).contains("taking over the stale name claim " + claim);
            assertThat(again.err()).as("the next create waited for no claim").doesNotContain("waiting for the name claim");
            assertThat(seconds(recovered - killedAt)).as("seconds from the kill to the next create's end, well"
                    + " before the killed claim expires (60 s)").isLessThan(50);
            assertThat(claimsHost.volumesNamed(stack.pool(), claim)).as("the claim after the next create").isEmpty();
            assertThat(hostsWithDomain(name)).containsExactly(HOST2);
            report("SIGKILLed claim holder: the next create took its claim over and made %s, %.1f s after the kill",
                    qualified(HOST2, name), seconds(recovered - killedAt));
        }
    }

    @Test
    void whatACutOffCreateLeftOnOneHostIsReportedAndRemovedWhenTheNameIsMadeOnTheOther() throws IOException {
        EgressctlProcess egressctl = egressctl(config());
        String name = entry + "-cut";
        Virsh second = StackHypervisors.virsh(stack, HOST2);
        String overlay = entry + "+" + name + ".qcow2";
        String seed = entry + "+" + name + ".seed.iso";
        // What a create killed after its disks and before its domain leaves behind (the claim it
        // held is taken over at once, as aClaimOfAKilledCreateIsReportedStaleAndTakenOver shows).
        second.virsh("vol-create-as", stack.pool(), overlay, "1M", "--format", "qcow2");
        second.virsh("vol-create-as", stack.pool(), seed, "1M");
        String strays = "instance volumes without their domain in pool " + stack.pool() + " on host " + HOST2;

        JsonNode before = check(egressctl.run("check", entry, "-o", "json"), strays);
        assertThat(before.get("warning").asBoolean()).as(before.toString()).isTrue();
        assertThat(before.get("detail").asText()).contains("2 volumes", overlay, seed, "virsh vol-delete --pool "
                + stack.pool());

        EgressctlProcess.Result created = egressctl.run(create(name, HOST));
        expectSuccess(created);
        assertThat(created.err()).as(created.toString()).contains("removed volume " + overlay, "removed volume "
                + seed, "cut off");
        assertThat(hostsWithDomain(name)).containsExactly(HOST);
        assertThat(second.volumesNamed(stack.pool(), entry + "+" + name + ".")).as("on " + HOST2).isEmpty();
        JsonNode after = check(egressctl.run("check", entry, "-o", "json"), strays);
        assertThat(after.get("warning").asBoolean()).as(after.toString()).isFalse();
        report("a cut-off create's overlay and seed on %s: check warned, and the create on %s removed them",
                HOST2, HOST);
    }

    @Test
    void aCreateFailsTransientlyAndMakesNothingWhileTheClaimsHostIsDown() throws IOException {
        EgressctlProcess egressctl = egressctl(config().setting("claimsHost", HOST)
                .handshakeTimeout(Duration.ofSeconds(10)));
        String name = entry + "-orphan";
        EgressctlProcess.Result result;
        try {
            StackSshd.kill(HOST);
            result = egressctl.run(create(name, HOST2));
        } finally {
            StackSshd.revive();
        }
        report("create in zone %s with the claims host %s down: exit %d, %s", HOST2, HOST, result.exitCode(),
                result.err().strip());
        assertThat(result.exitCode()).as(result.toString()).isEqualTo(TRANSIENT);
        assertThat(result.err()).as(result.toString())
                .contains("'" + HOST + "', the claims host of provider entry '" + entry + "'");
        for (String host : List.of(HOST, HOST2)) {
            Virsh virsh = StackHypervisors.virsh(stack, host);
            assertThat(virsh.domainsNamed(entry)).as("domains on %s", host).isEmpty();
            assertThat(virsh.volumesNamed(stack.pool(), entry)).as("volumes (overlay, seed, base) on %s", host)
                    .isEmpty();
        }
    }

    @Test
    void placementSpreadsSixProxiesThreeAndThree() throws IOException {
        EgressctlProcess egressctl = egressctl(config());
        Path set = temp.resolve("six.yaml");
        List<String> names = new ArrayList<>();
        for (int i = 1; i <= 6; i++) {
            names.add(entry + "-p" + i);
        }
        desire(set, names);

        JsonNode dryRun = json(egressctl.run("apply", "-f", set.toString(), "--dry-run", "-o", "json"));
        assertThat(dryRun.get("plan")).as(dryRun.toString()).hasSize(6)
                .allSatisfy(step -> assertThat(step.path("placed").asText()).startsWith("fewest instances"));
        assertThat(stepsByZone(dryRun.get("plan"))).as(dryRun.toString())
                .containsOnlyKeys(HOST, HOST2).allSatisfy((zone, steps) -> assertThat(steps).hasSize(3));

        EgressctlProcess.Result applied = egressctl.run("apply", "-f", set.toString());
        System.out.println("[fleet] apply of six proxies without zone:\n" + applied.out());
        expectSuccess(applied);
        Map<String, String> planned = new LinkedHashMap<>();
        Matcher line = Pattern.compile("\\+ create " + Pattern.quote(entry) + " (\\S+) in zone (\\S+): fewest")
                .matcher(applied.out());
        while (line.find()) {
            planned.put(line.group(1), line.group(2));
        }
        assertThat(planned).as(applied.out()).containsOnlyKeys(names);
        for (String name : names) {
            assertThat(hostsWithDomain(name)).as("where %s is, as planned", name).containsExactly(planned.get(name));
        }
        assertThat(StackHypervisors.virsh(stack, HOST).domainsNamed(entry)).hasSize(3);
        assertThat(StackHypervisors.virsh(stack, HOST2).domainsNamed(entry)).hasSize(3);

        String seventh = entry + "-p7";
        EgressctlProcess.Result created = createWithoutZone(egressctl, seventh);
        Matcher placing = placing(created, seventh);
        report("create -v without zone: %s", placing.group());
        assertThat(created.out()).contains(qualified(placing.group(1), seventh));
        assertThat(hostsWithDomain(seventh)).containsExactly(placing.group(1));
    }

    @Test
    void placementAvoidsAHostWhosePoolIsTooSmall() throws IOException {
        String smallPool = entry + "-small";
        Path folder = Files.createDirectories(Path.of(stack.value("EGRESS_TEST_STACK_DIR"), "host2", smallPool));
        Virsh second = StackHypervisors.virsh(stack, HOST2);
        String namespace = Long.toString(secondLibvirtdPid());
        boolean mounted = false;
        boolean defined = false;
        try {
            // The second libvirtd has a mount namespace of its own: the tmpfs is mounted in it.
            Commands.run(30, "nsenter", "-t", namespace, "-m", "mount", "-t", "tmpfs", "-o", "size=64m",
                    "egress-small-pool", folder.toString());
            mounted = true;
            second.virsh("pool-define-as", smallPool, "dir", "--target", folder.toString());
            defined = true;
            second.virsh("pool-start", smallPool);
            EgressctlProcess egressctl = egressctl(config().setting("diskSizeGb", "1")
                    .hostSetting(HOST2, "pool", KvmTestConfig.quoted(smallPool)));

            for (int i = 1; i <= 3; i++) {
                String name = entry + "-d" + i;
                EgressctlProcess.Result created = createWithoutZone(egressctl, name);
                Matcher placing = placing(created, name);
                report("create -v without zone, the second host's pool 64 MiB, disks 1 GiB: %s", placing.group());
                assertThat(placing.group(1)).isEqualTo(HOST);
                assertThat(placing.group(2)).contains("skipped " + HOST2 + " lacks pool space");
                assertThat(created.out()).contains(qualified(HOST, name));
            }
            assertThat(StackHypervisors.virsh(stack, HOST).domainsNamed(entry)).hasSize(3);
            assertThat(second.domainsNamed(entry)).isEmpty();
            assertThat(second.volumesNamed(smallPool, "")).as("volumes in the small pool").isEmpty();
        } finally {
            if (defined) {
                for (String volume : second.volumesNamed(smallPool, "")) {
                    second.virsh("vol-delete", "--pool", smallPool, volume);
                }
                if (second.virsh("pool-list", "--name").lines().anyMatch(smallPool::equals)) {
                    second.virsh("pool-destroy", smallPool);
                }
                second.virsh("pool-undefine", smallPool);
            }
            if (mounted) {
                Commands.run(30, "nsenter", "-t", namespace, "-m", "umount", folder.toString());
            }
            Files.deleteIfExists(folder);
        }
    }

    @Test
    void aCordonedHostGetsNoNewProxyUntilUncordoned() throws IOException {
        EgressctlProcess egressctl = egressctl(config());
        String cordonVolume = entry + "+" + HOST + ".cordon";
        Virsh claimsHost = StackHypervisors.virsh(stack, HOST);

        EgressctlProcess.Result cordoned = egressctl.run("cordon", entry + "/" + HOST);
        expectSuccess(cordoned);
        assertThat(cordoned.out()).contains("cordoned " + entry + "/" + HOST);
        assertThat(claimsHost.volumesNamed(stack.pool(), cordonVolume)).containsExactly(cordonVolume);

        for (int i = 1; i <= 2; i++) {
            String name = entry + "-c" + i;
            EgressctlProcess.Result created = egressctl.run("create", name, "--machine-type",
                    KvmTestConfig.MACHINE_TYPE, "--image", KvmTestConfig.IMAGE, "-v");
            expectSuccess(created);
            assertThat(created.out()).as(created.toString()).contains(qualified(HOST2, name));
            assertThat(created.err()).as(created.toString()).contains("skipped " + HOST + " cordoned");
        }
        assertThat(StackHypervisors.virsh(stack, HOST).domainsNamed(entry)).isEmpty();
        assertThat(StackHypervisors.virsh(stack, HOST2).domainsNamed(entry)).hasSize(2);

        EgressctlProcess.Result list = egressctl.run("list", "--provider", entry);
        expectSuccess(list);
        assertThat(list.err()).as(list.toString()).contains("host " + entry + "/" + HOST + " is cordoned")
                .doesNotContain(entry + "/" + HOST2 + " is cordoned");
        JsonNode cordons = check(egressctl.run("check", entry, "-o", "json"), "cordoned hosts");
        report("check while %s is cordoned: %s", HOST, cordons);
        assertThat(cordons.get("warning").asBoolean()).as(cordons.toString()).isTrue();
        assertThat(cordons.get("detail").asText()).startsWith(HOST + " (by process ").doesNotContain(HOST2);

        String pinned = entry + "-pinned";
        EgressctlProcess.Result refused = egressctl.run(create(pinned, HOST));
        assertThat(refused.exitCode()).as(refused.toString()).isEqualTo(TRANSIENT);
        assertThat(refused.err()).as(refused.toString()).contains("host '" + HOST + "' of provider entry '" + entry
                + "' is cordoned");
        assertThat(hostsWithDomain(pinned)).isEmpty();

        EgressctlProcess.Result uncordoned = egressctl.run("uncordon", entry + "/" + HOST);
        expectSuccess(uncordoned);
        assertThat(uncordoned.out()).contains("uncordoned " + entry + "/" + HOST);
        assertThat(claimsHost.volumesNamed(stack.pool(), cordonVolume)).isEmpty();
        EgressctlProcess.Result listAfter = egressctl.run("list", "--provider", entry);
        expectSuccess(listAfter);
        assertThat(listAfter.err()).as(listAfter.toString()).doesNotContain("cordoned");
        JsonNode noCordons = check(egressctl.run("check", entry, "-o", "json"), "cordoned hosts");
        assertThat(noCordons.get("warning").asBoolean()).as(noCordons.toString()).isFalse();
        assertThat(noCordons.get("detail").asText()).isEqualTo("none");
        expectSuccess(egressctl.run(create(pinned, HOST)));
        assertThat(hostsWithDomain(pinned)).containsExactly(HOST);
    }

    @Test
    void drainMovesThreeProxiesAndNeverListsANameTwice() throws Exception {
        EgressctlProcess egressctl = egressctl(config());
        Path set = temp.resolve("three.yaml");
        List<String> names = List.of(entry + "-a", entry + "-b", entry + "-c");
        desire(set, names);

        // Everything on the first host: the second is cordoned while the set is applied.
        expectSuccess(egressctl.run("cordon", entry + "/" + HOST2));
        EgressctlProcess.Result applied = egressctl.run("apply", "-f", set.toString());
        expectSuccess(applied);
        expectSuccess(egressctl.run("uncordon", entry + "/" + HOST2));
        assertThat(StackHypervisors.virsh(stack, HOST).domainsNamed(entry)).as(applied.out())
                .containsExactlyInAnyOrderElementsOf(names);

        AtomicBoolean draining = new AtomicBoolean(true);
        List<List<String>> polls = new ArrayList<>();
        List<String> failedPolls = new ArrayList<>();
        CompletableFuture<Void> poller = CompletableFuture.runAsync(() -> {
            while (draining.get()) {
                EgressctlProcess.Result listed = egressctl.run("list", "--provider", entry, "-o", "json");
                if (listed.exitCode() != 0) {
                    failedPolls.add(listed.toString());
                    continue;
                }
                List<String> seen = new ArrayList<>();
                try {
                    JSON.readTree(listed.out()).forEach(instance -> seen.add(instance.get("name").asText() + "@"
                            + instance.get("zone").asText()));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                synchronized (polls) {
                    polls.add(seen);
                }
            }
        });
        long started = System.nanoTime();
        EgressctlProcess.Result drained;
        try {
            drained = egressctl.run("drain", entry + "/" + HOST, "-f", set.toString());
        } finally {
            draining.set(false);
        }
        long drainSeconds = Math.round(seconds(System.nanoTime() - started));
        poller.get(PROCESS_LIMIT.toSeconds(), TimeUnit.SECONDS);
        System.out.println("[fleet] drain:\n" + drained);
        expectSuccess(drained);
        for (String name : names) {
            assertThat(drained.out()).contains("moved " + entry + "/" + HOST + "/" + name + " -> " + entry + "/"
                    + HOST2 + "/" + name);
        }

        report("drain of %s with 3 proxies: %d s; %d polls of list during it: %s", HOST, drainSeconds, polls.size(),
                polls);
        assertThat(failedPolls).as("lists that failed during the drain").isEmpty();
        assertThat(polls).as("lists during the drain").isNotEmpty();
        for (List<String> poll : polls) {
            List<String> listedNames = poll.stream().map(seen -> seen.substring(0, seen.indexOf('@'))).toList();
            assertThat(new HashSet<>(listedNames)).as("a list during the drain: %s", poll).hasSameSizeAs(listedNames);
        }

        JsonNode listed = json(egressctl.run("list", "--provider", entry, "-o", "json"));
        assertThat(listed).hasSize(3).allSatisfy(instance -> {
            assertThat(instance.get("zone").asText()).isEqualTo(HOST2);
            // Active; PROVISIONING since the stack's image gets no address (see the class comment).
            assertThat(instance.get("state").asText()).isIn("PROVISIONING", "RUNNING");
        });
        Virsh second = StackHypervisors.virsh(stack, HOST2);
        assertThat(second.virsh("list", "--state-running", "--name").lines().map(String::trim)
                .filter(name -> name.startsWith(entry)).toList()).as("running domains on %s", HOST2)
                .containsExactlyInAnyOrderElementsOf(names);
        assertThat(StackHypervisors.virsh(stack, HOST).domainsNamed(entry)).as("domains on %s", HOST).isEmpty();
        JsonNode cordons = check(egressctl.run("check", entry, "-o", "json"), "cordoned hosts");
        assertThat(cordons.get("detail").asText()).as("the drained host stays cordoned").startsWith(HOST + " (");
    }

    // --- helpers -----------------------------------------------------------------------------------

    private KvmTestConfig config() {
        return KvmTestConfig.kvm2().entry(entry).secondHost();
    }

    private EgressctlProcess egressctl(KvmTestConfig config) throws IOException {
        Path work = Files.createDirectories(temp.resolve("work"));
        Path configFile = Files.writeString(work.resolve("egress.yaml"), config.yaml());
        return new EgressctlProcess(Files.createDirectories(temp.resolve("home")), work)
                .with("EGRESS_CONFIG", configFile.toString()).withTimeout(PROCESS_LIMIT);
    }

    private static String[] create(String name, String zone, String... more) {
        List<String> arguments = new ArrayList<>(List.of("create", name, "--zone", zone, "--machine-type",
                KvmTestConfig.MACHINE_TYPE, "--image", KvmTestConfig.IMAGE));
        arguments.addAll(List.of(more));
        return arguments.toArray(String[]::new);
    }

    /** Writes a desired set of these proxies of the entry, none naming a zone. */
    private void desire(Path set, List<String> names) throws IOException {
        StringBuilder yaml = new StringBuilder("proxies:\n");
        for (String name : names) {
            yaml.append("  - {name: ").append(name).append(", provider: ").append(entry).append(", machineType: ")
                    .append(KvmTestConfig.MACHINE_TYPE).append(", image: ").append(KvmTestConfig.IMAGE).append("}\n");
        }
        Files.writeString(set, yaml);
    }

    private String qualified(String host, String name) {
        return entry + "/" + host + "/" + name;
    }

    /** The hosts on which a domain named exactly {@code name} is defined. */
    private List<String> hostsWithDomain(String name) {
        List<String> hosts = new ArrayList<>();
        for (String host : List.of(HOST, HOST2)) {
            if (StackHypervisors.virsh(stack, host).domainsNamed(name).contains(name)) {
                hosts.add(host);
            }
        }
        return hosts;
    }

    /** Removes the domain {@code name} on {@code host} with its overlay and seed, behind the backend's back. */
    private void removeInstance(String host, String name) {
        Virsh virsh = StackHypervisors.virsh(stack, host);
        virsh.removeDomain(name);
        for (String volume : virsh.volumesNamed(stack.pool(), entry + "+" + name + ".")) {
            virsh.virsh("vol-delete", "--pool", stack.pool(), volume);
        }
    }

    /** The PID of the second libvirtd, read now: {@code test-stack.sh up} may have restarted it. */
    private long secondLibvirtdPid() throws IOException {
        return Long.parseLong(Files.readString(Path.of(stack.value("EGRESS_TEST_STACK_DIR"), "host2",
                "libvirtd.pid")).strip());
    }

    private static Map<String, List<String>> stepsByZone(JsonNode plan) {
        Map<String, List<String>> byZone = new LinkedHashMap<>();
        plan.forEach(step -> byZone.computeIfAbsent(step.get("zone").asText(), zone -> new ArrayList<>())
                .add(step.get("name").asText()));
        return byZone;
    }

    /** The check of that name in {@code check -o json}'s output. */
    private static JsonNode check(EgressctlProcess.Result result, String name) throws IOException {
        JsonNode document = JSON.readTree(result.out());
        for (JsonNode check : document.get("checks")) {
            if (check.get("check").asText().equals(name)) {
                return check;
            }
        }
        throw new AssertionError("no check '" + name + "' in " + result);
    }

    private static Map<String, Long> count(List<String> values) {
        return values.stream().collect(Collectors.groupingBy(value -> value, java.util.TreeMap::new,
                Collectors.counting()));
    }

    private static void expectSuccess(EgressctlProcess.Result result) {
        assertThat(result.exitCode()).as(result.toString()).isZero();
    }

    private static JsonNode json(EgressctlProcess.Result result) throws IOException {
        expectSuccess(result);
        return JSON.readTree(result.out());
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }

    private static void report(String format, Object... arguments) {
        System.out.println("[fleet] " + String.format(java.util.Locale.ROOT, format, arguments));
    }

    private static String randomHex() {
        byte[] random = new byte[4];
        ThreadLocalRandom.current().nextBytes(random);
        return HexFormat.of().formatHex(random);
    }

    /** {@code create NAME -v} without zone, which must succeed. */
    private static EgressctlProcess.Result createWithoutZone(EgressctlProcess egressctl, String name) {
        EgressctlProcess.Result created = egressctl.run("create", name, "--machine-type", KvmTestConfig.MACHINE_TYPE,
                "--image", KvmTestConfig.IMAGE, "-v");
        expectSuccess(created);
        return created;
    }

    /** The log line of where the create of {@code name} was placed: group 1 the host, group 2 the reason. */
    private Matcher placing(EgressctlProcess.Result created, String name) {
        Matcher placing = Pattern.compile("placing " + Pattern.quote(name) + " of provider entry "
                + Pattern.quote(entry) + " on host (\\S+): (.*)").matcher(created.err());
        assertThat(placing.find()).as(created.toString()).isTrue();
        return placing;
    }
}

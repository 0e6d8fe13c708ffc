package dev.egressproxies.integration.kvm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.egressproxies.endtoend.EgressctlProcess;
import dev.egressproxies.endtoend.ServeProcess;
import dev.egressproxies.kvm.common.teststack.TestStack;
import dev.egressproxies.kvm.common.teststack.Virsh;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code egressctl serve} keeping a {@code kvm2} entry with the stack's two hosts in force, as its
 * own process, with the faults done behind its back by {@code virsh} and by killing an sshd:
 * <ul>
 *   <li>a domain undefined by hand is created again, a domain destroyed by hand is started again;</li>
 *   <li>with one host's sshd killed, that host shows as down in {@code /v1/entries} and
 *       {@code /metrics}, its proxies as UNKNOWN, and nothing is created in the entry meanwhile
 *       (not even a proxy undefined on the host that answers); once sshd is back, the host shows
 *       up and the entry converges; no proxy name exists on both hosts at any time;</li>
 *   <li>{@code egressctl list} works beside the running serve;</li>
 *   <li>{@code drain} while serve runs: serve places proxies without zone around a cordon, never
 *       puts one back on the drained host, and shows the cordon in {@code /v1/entries};</li>
 *   <li>SIGTERM while a create fetches its image slowly: serve exits 0 within the grace period
 *       plus its clean-up allowance, leaves no domain, overlay or seed, and {@code apply} converges
 *       afterwards.</li>
 * </ul>
 * The stack's VMs boot an image without an operating system or guest agent, so a healthy proxy is
 * PROVISIONING (running, no address), never RUNNING. Entry names start with
 * {@value NoKvmLeftovers#FAULT_PREFIX}; everything they make is removed after each test.
 */
@Tag("integration")
@ExtendWith(NoKvmLeftovers.class)
class Kvm2ServeEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration CONVERGE = Duration.ofSeconds(180);
    private static final String RESYNC = "5s";
    private static final Pattern LINK_UP = Pattern.compile("^egress_host_link_up\\{([^}]*)\\} (\\S+)$", Pattern.MULTILINE);

    private final TestStack stack = TestStack.load();
    private final String entry = NoKvmLeftovers.FAULT_PREFIX + "serve-" + randomHex();

    @TempDir
    Path temp;

    @AfterEach
    void removeWhatTheEntryMade() {
        LibvirtdFreezer.thaw();
        StackSshd.revive();
        StackHypervisors.removeNamed(stack, entry);
    }

    @Test
    void servesHealsOutOfBandChangesAndRidesOutAHostThatDoesNotAnswer() throws Exception {
        Map<String, String> proxies = new LinkedHashMap<>();
        proxies.put(entry + "-a", KvmTestConfig.HOST);
        proxies.put(entry + "-b", KvmTestConfig.HOST2);
        proxies.put(entry + "-c", KvmTestConfig.HOST);
        Setup setup = setUp(KvmTestConfig.kvm2().entry(entry).secondHost(), proxies, KvmTestConfig.IMAGE);
        try (DuplicateWatch duplicates = DuplicateWatch.start(stack, entry);
             ServeProcess serve = ServeProcess.start(setup.egressctl, "serve", "-f", setup.set.toString(),
                     "--listen", "127.0.0.1:0", "--resync", RESYNC, "--grace", "30s")) {
            long started = System.nanoTime();
            awaitAllProvisioning(serve, proxies);
            log("all %d proxies PROVISIONING after %d ms", proxies.size(), millisSince(started));
            proxies.forEach((name, host) -> assertThat(StackHypervisors.virsh(stack, host).domainsNamed(name))
                    .as("domain %s on %s", name, host).containsExactly(name));

            // egressctl list beside serve: its own process, its own connections.
            EgressctlProcess.Result list = setup.egressctl.run("list", "--provider", entry, "-o", "json");
            assertThat(list.exitCode()).as(list.toString()).isZero();
            List<String> listed = new ArrayList<>();
            JSON.readTree(list.out()).forEach(instance -> listed.add(instance.get("name").asText()));
            assertThat(listed).as("egressctl list while serve runs").containsExactlyInAnyOrderElementsOf(proxies.keySet());

            // (a) undefined behind serve's back: created again.
            String undefined = entry + "-a";
            Virsh local = StackHypervisors.virsh(stack, KvmTestConfig.HOST);
            String uuidBefore = local.virsh("domuuid", undefined).strip();
            long undefinedAt = System.nanoTime();
            local.virsh("destroy", undefined);
            local.virsh("undefine", undefined, "--nvram");
            awaitRecreated(serve, local, undefined, uuidBefore);
            log("(a) undefined domain created again after %d ms", millisSince(undefinedAt));

            // (b) destroyed behind serve's back: started again, the same domain.
            String destroyed = entry + "-b";
            Virsh second = StackHypervisors.virsh(stack, KvmTestConfig.HOST2);
            String uuid = second.virsh("domuuid", destroyed).strip();
            long destroyedAt = System.nanoTime();
            second.virsh("destroy", destroyed);
            serve.await("/v1/proxies", CONVERGE, destroyed + " started again", doc -> running(second, destroyed)
                    && isProvisioning(ServeProcess.proxy(doc, entry, destroyed)));
            assertThat(second.virsh("domuuid", destroyed).strip()).as("the same domain, started").isEqualTo(uuid);
            JsonNode startedAgain = ServeProcess.proxy(serve.get("/v1/proxies"), entry, destroyed);
            assertThat(startedAgain.path("action").asText()).as(startedAgain.toString()).isEqualTo("start");
            log("(b) destroyed domain started again after %d ms", millisSince(destroyedAt));

            // (c) the second host's sshd killed: the host is down, its proxy UNKNOWN, nothing created.
            StackSshd.kill(KvmTestConfig.HOST2);
            long killedAt = System.nanoTime();
            serve.await("/v1/entries", Duration.ofSeconds(60), "host " + KvmTestConfig.HOST2 + " down",
                    doc -> !hostUp(doc, KvmTestConfig.HOST2) && hostUp(doc, KvmTestConfig.HOST));
            log("(c) host %s shown down after %d ms", KvmTestConfig.HOST2, millisSince(killedAt));
            assertThat(linkUp(serve, KvmTestConfig.HOST2)).as("egress_host_link_up of the dead host").isEqualTo(0.0);
            assertThat(linkUp(serve, KvmTestConfig.HOST)).as("egress_host_link_up of the live host").isEqualTo(1.0);
            JsonNode entries = serve.get("/v1/entries");
            assertThat(host(entries, KvmTestConfig.HOST2).path("downSince").isNull()).as(entries.toString()).isFalse();
            serve.await("/v1/proxies", Duration.ofSeconds(30), destroyed + " UNKNOWN",
                    doc -> "UNKNOWN".equals(ServeProcess.proxy(doc, entry, destroyed).path("state").asText()));

            // A name missing from the live host may exist on the dead one: serve must not create it now.
            String missing = entry + "-c";
            local.virsh("destroy", missing);
            local.virsh("undefine", missing, "--nvram");
            long waitFrom = System.nanoTime();
            JsonNode waiting = serve.await("/v1/proxies", Duration.ofSeconds(30), missing + " waiting",
                    doc -> "waiting".equals(ServeProcess.proxy(doc, entry, missing).path("outcome").asText()));
            log("(c) %s waits while %s is down: %s", missing, KvmTestConfig.HOST2,
                    ServeProcess.proxy(waiting, entry, missing));
            // Three resyncs with the host down: still nothing created.
            Thread.sleep(Math.max(0, 16_000 - millisSince(waitFrom)));
            assertThat(local.domainsNamed(missing)).as("created while a host was down").isEmpty();
            assertThat(StackHypervisors.virsh(stack, KvmTestConfig.HOST2).domainsNamed(entry))
                    .as("what the dead host holds (read locally)").containsExactly(destroyed);

            long revivedAt = System.nanoTime();
            StackSshd.revive();
            serve.await("/v1/entries", Duration.ofSeconds(90), "host " + KvmTestConfig.HOST2 + " up again",
                    doc -> hostUp(doc, KvmTestConfig.HOST2) && hostUp(doc, KvmTestConfig.HOST));
            log("(c) host %s up again %d ms after the revive began", KvmTestConfig.HOST2, millisSince(revivedAt));
            assertThat(linkUp(serve, KvmTestConfig.HOST2)).as("egress_host_link_up after the revive").isEqualTo(1.0);
            awaitAllProvisioning(serve, proxies);
            log("(c) converged %d ms after the revive began", millisSince(revivedAt));
            for (String host : List.of(KvmTestConfig.HOST, KvmTestConfig.HOST2)) {
                List<String> expected = proxies.entrySet().stream().filter(proxy -> proxy.getValue().equals(host))
                        .map(Map.Entry::getKey).toList();
                assertThat(StackHypervisors.virsh(stack, host).domainsNamed(entry)).as("domains on %s", host)
                        .containsExactlyInAnyOrderElementsOf(expected);
            }

            serve.signal("TERM");
            EgressctlProcess.Result exit = serve.awaitExit(Duration.ofSeconds(60));
            assertThat(exit.exitCode()).as(exit.toString()).isZero();
            duplicates.stop();
            log("name polls of both hosts: %d, names on both hosts at once: %s", duplicates.polls(), duplicates.seen());
            assertThat(duplicates.polls()).as("polls of both hosts' domain lists").isGreaterThan(10);
            assertThat(duplicates.seen()).as("names that existed on both hosts at once").isEmpty();
        }
    }

    @Test
    void sigtermDuringACreateExitsWithinTheGracePeriodAndLeavesNothingHalfMade() throws Exception {
        try (SlowImageServer images = SlowImageServer.serve(stack.qcow2Image())) {
            String name = entry + "-slow";
            Map<String, String> proxies = Map.of(name, KvmTestConfig.HOST2);
            Setup setup = setUp(KvmTestConfig.kvm2().entry(entry).secondHost().image("slow", images.url()), proxies,
                    "slow");
            Duration grace = Duration.ofSeconds(2);
            long exitedAfter;
            try (ServeProcess serve = ServeProcess.start(setup.egressctl, "serve", "-f", setup.set.toString(),
                    "--listen", "127.0.0.1:0", "--resync", RESYNC, "--grace", grace.toSeconds() + "s")) {
                images.expect(images.length() / 5);
                assertThat(images.awaitSent(Duration.ofSeconds(90))).as("a fifth of the image sent").isTrue();
                JsonNode inFlight = serve.await("/v1/proxies", Duration.ofSeconds(10), name + " in flight",
                        doc -> "in-flight".equals(ServeProcess.proxy(doc, entry, name).path("outcome").asText()));
                log("SIGTERM with %d of %d bytes sent: %s", images.bytesSent(), images.length(),
                        ServeProcess.proxy(inFlight, entry, name));
                long signalled = System.nanoTime();
                serve.signal("TERM");
                EgressctlProcess.Result exit = serve.awaitExit(Duration.ofSeconds(60));
                exitedAfter = millisSince(signalled);
                log("serve exited %d after %d ms; its log:%n%s", exit.exitCode(), exitedAfter, exit.err());
                assertThat(exit.exitCode()).as(exit.toString()).isZero();
                assertThat(exitedAfter).as("ms from SIGTERM to exit (grace %s + 15 s clean-up)", grace)
                        .isLessThan(grace.toMillis() + 15_000 + 5_000);
                assertThat(exit.err()).contains("interrupting the operations in flight");
                assertThat(images.bytesSent()).as("the image was still in transfer").isLessThan(images.length());
            }
            for (String host : List.of(KvmTestConfig.HOST, KvmTestConfig.HOST2)) {
                Virsh virsh = StackHypervisors.virsh(stack, host);
                List<String> volumes = virsh.volumesNamed(stack.pool(), entry);
                log("after the interrupted create, on %s: domains %s, volumes %s", host, virsh.domainsNamed(entry),
                        volumes);
                assertThat(virsh.domainsNamed(entry)).as("domains on %s", host).isEmpty();
                assertThat(volumes).as("volumes on %s", host).noneMatch(volume -> volume.startsWith(entry + "+" + name)
                        || volume.endsWith(".lease"));
            }

            images.slow(false);
            EgressctlProcess.Result applied = setup.egressctl.run("apply", "-f", setup.set.toString());
            assertThat(applied.exitCode()).as(applied.toString()).isZero();
            assertThat(StackHypervisors.virsh(stack, KvmTestConfig.HOST2).domainsNamed(entry)).containsExactly(name);
            assertThat(StackHypervisors.virsh(stack, KvmTestConfig.HOST).domainsNamed(entry)).isEmpty();
        }
    }

    /**
     * {@code drain} while {@code serve} keeps a set of three proxies without zone in force: serve
     * places them around a cordon, drain moves them to the other host one at a time, serve never
     * puts one back on the drained host, shows its cordon, and no name is on both hosts at once.
     */
    @Test
    void drainMovesProxiesWhileServeRunsAndServeHonoursTheCordon() throws Exception {
        Map<String, String> proxies = new LinkedHashMap<>();
        for (String suffix : List.of("-p", "-q", "-r")) {
            proxies.put(entry + suffix, "");
        }
        Setup setup = setUp(KvmTestConfig.kvm2().entry(entry).secondHost(), proxies, KvmTestConfig.IMAGE);
        String drained = entry + "/" + KvmTestConfig.HOST;
        String other = entry + "/" + KvmTestConfig.HOST2;
        EgressctlProcess.Result cordoned = setup.egressctl.run("cordon", other);
        assertThat(cordoned.exitCode()).as(cordoned.toString()).isZero();
        try (DuplicateWatch duplicates = DuplicateWatch.start(stack, entry);
             ServeProcess serve = ServeProcess.start(setup.egressctl, "serve", "-f", setup.set.toString(),
                     "--listen", "127.0.0.1:0", "--resync", RESYNC, "--grace", "30s")) {
            Map<String, String> onFirst = new LinkedHashMap<>();
            proxies.keySet().forEach(name -> onFirst.put(name, KvmTestConfig.HOST));
            awaitAllProvisioning(serve, onFirst);
            serve.await("/v1/entries", CONVERGE, "the second host shown cordoned",
                    doc -> host(doc, KvmTestConfig.HOST2).path("cordoned").asBoolean(false));
            EgressctlProcess.Result uncordoned = setup.egressctl.run("uncordon", other);
            assertThat(uncordoned.exitCode()).as(uncordoned.toString()).isZero();

            long started = System.nanoTime();
            EgressctlProcess.Result drain = setup.egressctl.run("drain", drained, "-f", setup.set.toString());
            log("drain of %s with serve running: %d ms, exit %d", drained, millisSince(started), drain.exitCode());

            assertThat(drain.exitCode()).as(drain.toString()).isZero();
            assertThat(drain.out()).contains("drained " + drained + ": 3 proxies moved");
            Map<String, String> onSecond = new LinkedHashMap<>();
            proxies.keySet().forEach(name -> onSecond.put(name, KvmTestConfig.HOST2));
            awaitAllProvisioning(serve, onSecond);
            serve.await("/v1/entries", CONVERGE, "the drained host shown cordoned",
                    doc -> host(doc, KvmTestConfig.HOST).path("cordoned").asBoolean(false));
            // Two more resyncs: serve leaves the proxies where drain put them and the drained host empty.
            Thread.sleep(12_000);
            assertThat(StackHypervisors.virsh(stack, KvmTestConfig.HOST).domainsNamed(entry))
                    .as("domains of the entry on the drained host").isEmpty();
            assertThat(StackHypervisors.virsh(stack, KvmTestConfig.HOST2).domainsNamed(entry))
                    .as("domains of the entry on the other host").hasSize(3);
            assertThat(duplicates.seen()).as("names on both hosts at once (%d polls)", duplicates.polls()).isEmpty();
        }
    }

    private record Setup(EgressctlProcess egressctl, Path set) {
    }

    private Setup setUp(KvmTestConfig config, Map<String, String> proxies, String image) throws IOException {
        Path work = Files.createDirectories(temp.resolve("work"));
        Path configFile = Files.writeString(work.resolve("egress.yaml"), config.yaml());
        EgressctlProcess egressctl = new EgressctlProcess(Files.createDirectories(temp.resolve("home")), work)
                .with("EGRESS_CONFIG", configFile.toString()).withTimeout(Duration.ofMinutes(3));
        StringBuilder set = new StringBuilder("proxies:\n");
        proxies.forEach((name, host) -> set.append("  - {name: ").append(name).append(", provider: ").append(entry)
                .append(host.isEmpty() ? "" : ", zone: " + host).append(", machineType: ").append(KvmTestConfig.MACHINE_TYPE)
                .append(", image: ").append(image).append("}\n"));
        return new Setup(egressctl, Files.writeString(work.resolve("proxies.yaml"), set.toString()));
    }

    private void awaitAllProvisioning(ServeProcess serve, Map<String, String> proxies) {
        serve.await("/v1/proxies", CONVERGE, "every proxy PROVISIONING on its host", doc -> proxies.entrySet().stream()
                .allMatch(proxy -> {
                    JsonNode view = ServeProcess.proxy(doc, entry, proxy.getKey());
                    return isProvisioning(view) && proxy.getValue().equals(view.path("observed").path("zone").asText());
                }));
    }

    private void awaitRecreated(ServeProcess serve, Virsh virsh, String name, String uuidBefore) {
        serve.await("/v1/proxies", CONVERGE, name + " created again", doc ->
                isProvisioning(ServeProcess.proxy(doc, entry, name)) && virsh.domainsNamed(name).contains(name)
                        && !virsh.virsh("domuuid", name).strip().equals(uuidBefore) && running(virsh, name));
    }

    private static boolean isProvisioning(JsonNode view) {
        return view != null && "PROVISIONING".equals(view.path("state").asText())
                && "ok".equals(view.path("outcome").asText());
    }

    private static boolean running(Virsh virsh, String domain) {
        return virsh.virsh("list", "--state-running", "--name").lines().map(String::strip).anyMatch(domain::equals);
    }

    private JsonNode host(JsonNode entries, String zone) {
        for (JsonNode each : entries.path("entries")) {
            if (each.path("name").asText().equals(entry)) {
                for (JsonNode host : each.path("hosts")) {
                    if (host.path("zone").asText().equals(zone)) {
                        return host;
                    }
                }
            }
        }
        return JSON.missingNode();
    }

    private boolean hostUp(JsonNode entries, String zone) {
        return host(entries, zone).path("up").asBoolean(false);
    }

    private double linkUp(ServeProcess serve, String zone) {
        String metrics = serve.send("GET", "/metrics").body();
        Matcher line = LINK_UP.matcher(metrics);
        while (line.find()) {
            if (line.group(1).contains("entry=\"" + entry + "\"") && line.group(1).contains("host=\"" + zone + "\"")) {
                return Double.parseDouble(line.group(2));
            }
        }
        throw new AssertionError("no egress_host_link_up of " + entry + "/" + zone + " in:\n" + metrics);
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }

    private static void log(String format, Object... arguments) {
        System.out.println("[kvm2 serve] " + String.format(format, arguments));
    }

    private static String randomHex() {
        byte[] random = new byte[4];
        ThreadLocalRandom.current().nextBytes(random);
        return HexFormat.of().formatHex(random);
    }
}

package dev.egressproxies.integration.kvm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.endtoend.EgressctlProcess;
import dev.egressproxies.kvm.common.testing.ImageServer;
import dev.egressproxies.kvm.common.teststack.TestStack;
import dev.egressproxies.kvm.common.teststack.Virsh;
import dev.egressproxies.runtime.cli.ExitCode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Base images of a {@code kvm2} entry with two hosts (issue #34), on the real stack's two
 * libvirtds, each step a separate {@code egressctl} process as users run it:
 * <ul>
 *   <li>{@code images} lists each host's base with the proxies that back on it, in a table and as JSON;</li>
 *   <li>{@code images pull} onto both hosts at once, with a create on the first host racing it:
 *       the image is fetched once per host (counted at the image server), and a second pull
 *       fetches nothing;</li>
 *   <li>{@code images prune} racing a create of the same base, 20 times: the create's domain always
 *       backs on a base that exists (the one it found, or a new one it fetched), never a deleted
 *       one;</li>
 *   <li>{@code images prune --dry-run} changes nothing and says what a prune frees; the prune then
 *       deletes exactly that, and {@code check}'s warning points at it.</li>
 * </ul>
 * The entry's name is unique per test and starts with {@value NoKvmLeftovers#FAULT_PREFIX}; all it
 * makes on either host starts with it and is removed after each test.
 */
@Tag("integration")
@ExtendWith(NoKvmLeftovers.class)
class Kvm2ImagesEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String HOST = KvmTestConfig.HOST;
    private static final String HOST2 = KvmTestConfig.HOST2;
    private static final int TRANSIENT = ExitCode.of(ErrorKind.TRANSIENT);
    private static final int RACE_ROUNDS = 20;
    private static final Duration PROCESS_LIMIT = Duration.ofMinutes(5);
    private static final Pattern BACKING = Pattern.compile("<backingStore>\\s*<path>([^<]+)</path>");

    private final TestStack stack = TestStack.load();
    private final String entry = NoKvmLeftovers.FAULT_PREFIX + "images-" + randomHex();

    @TempDir
    Path temp;

    @AfterEach
    void removeWhatTheEntryMade() {
        StackHypervisors.removeNamed(stack, entry);
    }

    @Test
    void imagesListsEachHostsBaseWithTheProxiesThatBackOnIt() throws IOException {
        EgressctlProcess egressctl = egressctl(config());
        expectSuccess(egressctl.run(create(entry + "-a", HOST)));
        expectSuccess(egressctl.run(create(entry + "-b", HOST)));
        expectSuccess(egressctl.run(create(entry + "-c", HOST2)));

        EgressctlProcess.Result table = egressctl.run("images", "--provider", entry);
        JsonNode listed = json(egressctl.run("images", "--provider", entry, "-o", "json"));

        report("images:\n%s", table.out());
        expectSuccess(table);
        assertThat(table.out()).contains("HOST", "USERS", entry + "/" + HOST, entry + "/" + HOST2,
                "2 (" + entry + "-a, " + entry + "-b)", "1 (" + entry + "-c)", "in use");
        Map<String, JsonNode> byZone = new TreeMap<>();
        listed.forEach(base -> byZone.put(base.get("zone").asText(), base));
        assertThat(byZone).containsOnlyKeys(HOST, HOST2);
        JsonNode first = byZone.get(HOST);
        assertThat(first.get("key").asText()).isEqualTo(KvmTestConfig.IMAGE);
        assertThat(first.get("source").asText()).startsWith("http://127.0.0.1");
        assertThat(first.get("sha256").asText()).hasSize(64);
        assertThat(first.get("format").asText()).isEqualTo("qcow2");
        assertThat(first.get("virtualBytes").asLong()).isPositive();
        assertThat(first.get("allocatedBytes").asLong()).isPositive();
        assertThat(first.get("createdAt").isNull()).as(first.toString()).isFalse();
        assertThat(first.get("userCount").asInt()).isEqualTo(2);
        assertThat(first.get("lease").asText()).isEqualTo("none");
        assertThat(first.get("unused").asBoolean()).isFalse();
        assertThat(first.get("legacy").asBoolean()).isFalse();
        assertThat(byZone.get(HOST2).get("users")).extracting(JsonNode::asText).containsExactly(entry + "-c");
    }

    @Test
    void pullOntoTwoHostsWithACreateRacingItFetchesOncePerHost() throws IOException {
        try (ImageServer server = new ImageServer()) {
            server.serveFile("/counted.qcow2", stack.qcow2Image());
            EgressctlProcess egressctl = egressctl(config().image("counted", server.url("/counted.qcow2")));
            String name = entry + "-racer";

            EgressctlProcess.Running pull = egressctl.start("images", "pull", "counted", "--provider", entry);
            EgressctlProcess.Running create = egressctl.start("create", name, "--zone", HOST, "--machine-type",
                    KvmTestConfig.MACHINE_TYPE, "--image", "counted");
            EgressctlProcess.Result pulled = pull.await();
            EgressctlProcess.Result created = create.await();
            report("pull onto both hosts with a create racing it: pull exit %d\n%s\ncreate exit %d\n%s",
                    pulled.exitCode(), pulled, created.exitCode(), created);
            assertThat(pulled.exitCode()).as(pulled.toString()).isIn(0, TRANSIENT);
            assertThat(created.exitCode()).as(created.toString()).isIn(0, TRANSIENT);
            if (pulled.exitCode() != 0) {
                assertThat(pulled.err()).contains("another process");
            }

            EgressctlProcess.Result again = egressctl.run("images", "pull", "counted", "--provider", entry);
            expectSuccess(again);
            assertThat(server.gets("/counted.qcow2")).as("GETs of the image: one per host").isEqualTo(2);
            assertThat(again.out()).contains(entry + "/" + HOST + ": already cached", entry + "/" + HOST2
                    + ": already cached");
            if (created.exitCode() != 0) {
                expectSuccess(egressctl.run("create", name, "--zone", HOST, "--machine-type",
                        KvmTestConfig.MACHINE_TYPE, "--image", "counted"));
            }
            assertThat(server.gets("/counted.qcow2")).as("GETs after a create on a host pulled onto").isEqualTo(2);
            JsonNode listed = json(egressctl.run("images", "--provider", entry, "-o", "json"));
            List<String> zones = new ArrayList<>();
            listed.forEach(base -> zones.add(base.get("zone").asText() + ":" + base.get("key").asText()));
            assertThat(zones).containsExactlyInAnyOrder(HOST + ":counted", HOST2 + ":counted");
        }
    }

    @Test
    void pruneRacingACreateNeverLeavesADomainOnADeletedBase() throws IOException {
        EgressctlProcess egressctl = egressctl(config());
        Virsh virsh = StackHypervisors.virsh(stack, HOST);
        int kept = 0;
        int fetchedAnew = 0;
        int failed = 0;
        long started = System.nanoTime();
        for (int round = 1; round <= RACE_ROUNDS; round++) {
            String name = entry + "-r" + round;
            expectSuccess(egressctl.run("images", "pull", KvmTestConfig.IMAGE, "--provider", entry, "--host", HOST));
            String baseBefore = baseVolumes(virsh).get(0);

            // Started together, or the create ahead by up to 1.2 s, so that either may reach the base first.
            EgressctlProcess.Running create = egressctl.start(create(name, HOST));
            pause(Duration.ofMillis(300L * (round % 5)));
            EgressctlProcess.Running prune = egressctl.start("images", "prune", "--provider", entry);
            EgressctlProcess.Result pruned = prune.await();
            EgressctlProcess.Result created = create.await();
            String all = "round " + round + ":\n" + pruned + "\n" + created;

            assertThat(pruned.exitCode()).as(all).isIn(0, TRANSIENT);
            if (created.exitCode() != 0) {
                // Only as two creates of one image may: the other holds the fetch lease; retry then.
                assertThat(created.exitCode()).as(all).isEqualTo(TRANSIENT);
                assertThat(virsh.domainsNamed(name)).as(all).isEmpty();
                failed++;
                continue;
            }
            assertThat(virsh.domainsNamed(name)).as(all).containsExactly(name);
            String overlayXml = virsh.virsh("vol-dumpxml", "--pool", stack.pool(), entry + "+" + name + ".qcow2");
            Matcher backing = BACKING.matcher(overlayXml);
            assertThat(backing.find()).as("the overlay's backing store; %s", overlayXml).isTrue();
            String base = Path.of(backing.group(1)).getFileName().toString();
            assertThat(baseVolumes(virsh)).as("bases when the domain backs on %s; %s", base, all).contains(base);
            assertThat(Files.exists(Path.of(backing.group(1))) || volumePath(virsh, base).equals(backing.group(1)))
                    .as(all).isTrue();
            if (pruned.out().contains("deleted " + entry + "/" + HOST + " " + baseBefore)) {
                fetchedAnew++;
            } else {
                kept++;
            }
            removeInstance(virsh, name);
        }
        report("prune racing a create, %d rounds, %.1f s: the create kept the base %d times, fetched it anew after"
                + " the prune %d times, failed TRANSIENT (fetch lease held) %d times", RACE_ROUNDS,
                (System.nanoTime() - started) / 1e9, kept, fetchedAnew, failed);
    }

    @Test
    void aDryRunChangesNothingAndThePruneThenDeletesWhatItNamed() throws IOException {
        EgressctlProcess egressctl = egressctl(config());
        expectSuccess(egressctl.run("images", "pull", KvmTestConfig.IMAGE, "--provider", entry));
        Virsh first = StackHypervisors.virsh(stack, HOST);
        Virsh second = StackHypervisors.virsh(stack, HOST2);
        List<String> before = volumes(first, second);

        EgressctlProcess.Result dryRun = egressctl.run("images", "prune", "--provider", entry, "--dry-run");
        JsonNode dryJson = json(egressctl.run("images", "prune", "--provider", entry, "--dry-run", "-o", "json"));
        List<String> afterDryRun = volumes(first, second);
        JsonNode check = check(egressctl.run("check", entry, "-o", "json"), "unused base images in pool "
                + stack.pool() + " on host " + HOST);
        EgressctlProcess.Result pruned = egressctl.run("images", "prune", "--provider", entry);

        report("dry run:\n%s\nprune:\n%s", dryRun.out(), pruned.out());
        expectSuccess(dryRun);
        assertThat(afterDryRun).as("volumes after the dry run").isEqualTo(before);
        assertThat(dryRun.out()).contains("would delete " + entry + "/" + HOST + " ", "would delete " + entry + "/"
                + HOST2 + " ", "would free ", "(dry run: nothing deleted)");
        assertThat(dryJson.get("dryRun").asBoolean()).isTrue();
        assertThat(dryJson.get("wouldDelete")).hasSize(2);
        assertThat(check.get("detail").asText()).contains("egressctl images prune --provider " + entry);
        expectSuccess(pruned);
        assertThat(pruned.out()).contains("deleted " + entry + "/" + HOST + " ", "deleted " + entry + "/" + HOST2
                + " ", "freed " + dryRun.out().lines().filter(line -> line.startsWith("would free "))
                .findFirst().orElseThrow().substring("would free ".length()).replace(" (dry run: nothing deleted)", ""));
        assertThat(volumes(first, second)).as("volumes after the prune").isEmpty();
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

    private static String[] create(String name, String zone) {
        return new String[] {"create", name, "--zone", zone, "--machine-type", KvmTestConfig.MACHINE_TYPE, "--image",
            KvmTestConfig.IMAGE};
    }

    /** The entry's volumes on both hosts, as HOST:NAME. */
    private List<String> volumes(Virsh first, Virsh second) {
        List<String> volumes = new ArrayList<>();
        first.volumesNamed(stack.pool(), entry).forEach(volume -> volumes.add(HOST + ":" + volume));
        second.volumesNamed(stack.pool(), entry).forEach(volume -> volumes.add(HOST2 + ":" + volume));
        return volumes;
    }

    private List<String> baseVolumes(Virsh virsh) {
        return virsh.volumesNamed(stack.pool(), entry).stream().filter(volume -> volume.matches(".*\\.base\\.qcow2"))
                .toList();
    }

    private String volumePath(Virsh virsh, String volume) {
        return virsh.virsh("vol-path", "--pool", stack.pool(), volume).strip();
    }

    private void removeInstance(Virsh virsh, String name) {
        virsh.removeDomain(name);
        for (String volume : virsh.volumesNamed(stack.pool(), entry + "+" + name + ".")) {
            virsh.virsh("vol-delete", "--pool", stack.pool(), volume);
        }
    }

    private static JsonNode check(EgressctlProcess.Result result, String name) throws IOException {
        JsonNode document = JSON.readTree(result.out());
        for (JsonNode check : document.get("checks")) {
            if (check.get("check").asText().equals(name)) {
                return check;
            }
        }
        throw new AssertionError("no check '" + name + "' in " + result);
    }

    private static void expectSuccess(EgressctlProcess.Result result) {
        assertThat(result.exitCode()).as(result.toString()).isZero();
    }

    private static JsonNode json(EgressctlProcess.Result result) throws IOException {
        expectSuccess(result);
        return JSON.readTree(result.out());
    }

    private static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", interrupted);
        }
    }

    private static void report(String format, Object... arguments) {
        System.out.println("[images] " + String.format(Locale.ROOT, format, arguments));
    }

    private static String randomHex() {
        byte[] random = new byte[4];
        ThreadLocalRandom.current().nextBytes(random);
        return HexFormat.of().formatHex(random);
    }
}

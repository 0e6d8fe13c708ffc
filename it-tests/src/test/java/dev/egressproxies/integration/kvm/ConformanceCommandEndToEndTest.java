package dev.egressproxies.integration.kvm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.egressproxies.endtoend.EgressctlProcess;
import dev.egressproxies.kvm.common.teststack.TestStack;
import dev.egressproxies.kvm.common.teststack.Virsh;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code egressctl conformance} against a {@code kvm2} entry with the stack's two hosts, as an
 * operator certifies a newly configured hypervisor: every case passes with the hooks the plugin
 * declares, and afterwards neither host has a domain or volume of the run's test instances (only
 * the entry's cached base image, as after any create); interrupted with Ctrl-C, the run stops
 * within the cleanup of the case under way and still leaves no test instance behind.
 *
 * <p>The entry's name is unique and starts with {@value NoKvmLeftovers#FAULT_PREFIX}, so its base
 * volumes go at the end; the run's instances are named {@code conformance-RUN-...}.
 */
@Tag("integration")
@ExtendWith(NoKvmLeftovers.class)
class ConformanceCommandEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern PREFIX = Pattern.compile("test instances are named (conformance-[a-z0-9]+-)\\*");

    private final TestStack stack = TestStack.load();

    @TempDir
    Path temp;

    private Kvm2StackEntry entry;
    private EgressctlProcess egressctl;

    @BeforeEach
    void configure() {
        entry = Kvm2StackEntry.create("conformance", temp.resolve("state"));
        egressctl = entry.egressctl(entry.config().secondHost(), temp);
    }

    @AfterEach
    void removeWhatTheEntryMade() {
        entry.close();
    }

    @Test
    void everyCasePassesAndTheRunLeavesNoInstanceBehind() throws IOException {
        Path report = temp.resolve("reports/conformance.xml");
        EgressctlProcess.Result run = egressctl.run("conformance", entry.name(), "-o", "json", "--junit-xml",
                report.toString());

        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode document = JSON.readTree(run.out());
        assertThat(document.get("failed").asInt()).as(run.toString()).isZero();
        assertThat(document.get("notRun").asInt()).as(run.toString()).isZero();
        assertThat(document.get("passed").asInt()).isEqualTo(document.get("cases").size()).isGreaterThanOrEqualTo(62);
        assertThat(document.get("leftoversDeleted")).as("every case deleted what it made").isEmpty();
        assertThat(Files.readString(report)).contains("tests=\"" + document.get("cases").size() + "\"")
                .contains("failures=\"0\"");
        assertNothingOfTheRunLeft(document.get("namePrefix").asText());
    }

    @Test
    void ctrlCStopsTheRunAndDeletesWhatItMade() throws Exception {
        EgressctlProcess.Running running = egressctl.start("conformance", entry.name());
        String prefix = awaitLines(running, 8);

        Process signal = new ProcessBuilder("kill", "-INT", Long.toString(running.process().pid())).start();
        assertThat(signal.waitFor()).isZero();
        EgressctlProcess.Result result = running.await();

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(130);
        assertThat(result.out()).as(result.toString()).contains("not run").contains("the run was cancelled");
        assertNothingOfTheRunLeft(prefix);
    }

    /** Waits until the run printed its header and {@code cases} results; returns its name prefix. */
    private static String awaitLines(EgressctlProcess.Running running, int cases) throws Exception {
        long end = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        while (System.nanoTime() < end) {
            List<String> lines = Files.readAllLines(running.out());
            Matcher header = lines.isEmpty() ? null : PREFIX.matcher(lines.get(0));
            long results = lines.stream().filter(line -> line.startsWith("  ")).count();
            if (header != null && header.find() && results >= cases) {
                return header.group(1);
            }
            assertThat(running.process().isAlive()).as("the run is still going: %s", lines).isTrue();
            Thread.sleep(100);
        }
        throw new AssertionError("the run printed fewer than " + cases + " results in 5 minutes");
    }

    /** Neither host has a domain or volume named for the run's instances. */
    private void assertNothingOfTheRunLeft(String prefix) {
        List<String> left = new ArrayList<>();
        for (String host : List.of(KvmTestConfig.HOST, KvmTestConfig.HOST2)) {
            Virsh virsh = StackHypervisors.virsh(stack, host);
            virsh.domainsNamed(prefix).forEach(domain -> left.add(host + ": domain " + domain));
            virsh.volumesNamed(stack.pool(), entry.name()).stream()
                    .filter(volume -> !volume.contains(".base.qcow2"))
                    .forEach(volume -> left.add(host + ": volume " + volume));
        }
        assertThat(left).as("what the run with prefix %s left on the hosts", prefix).isEmpty();
    }
}

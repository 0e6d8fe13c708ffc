package dev.egressproxies.endtoend;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code egressctl conformance} as a separate process against fake entries: the embedded default
 * passes with every hook the fake declares and keeps nothing of the run in its state file; the
 * outcome comes as a tree, a JSON document and a JUnit XML report; a capability the entry lacks
 * fails its cases and the exit code; a mistaken option changes nothing; Ctrl-C stops the run and
 * deletes what it made.
 */
class FakeConformanceCommandEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path temp;

    private Path home;
    private Path work;
    private EgressctlProcess egressctl;

    @BeforeEach
    void setUp() throws IOException {
        home = Files.createDirectories(temp.resolve("home"));
        work = Files.createDirectories(temp.resolve("work"));
        egressctl = new EgressctlProcess(home, work).withTimeout(Duration.ofMinutes(3));
    }

    @Test
    void theEmbeddedDefaultPassesAndKeepsNothingOfTheRun() throws IOException {
        EgressctlProcess.Result run = egressctl.run("conformance", "fake");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        String[] lines = run.out().split("\n");
        assertThat(lines[0]).startsWith("Conformance of entry 'fake' (fake ").contains("conformance-");
        assertThat(run.out()).contains("\nCreate\n", "\nEntryScope\n", "\n  pass    ")
                .doesNotContain("  FAIL", "  not run");
        assertThat(lines[lines.length - 1]).matches("\\d+ cases: (\\d+) passed, 0 failed, 0 not run \\(.*\\)");

        Path state = home.resolve(".local/state/egress/fake/instances.json");
        assertThat(Files.readString(state)).as("the state file after the run").doesNotContain("conformance-");
        EgressctlProcess.Result listed = egressctl.run("list", "-o", "json");
        assertThat(JSON.readTree(listed.out())).as(listed.toString()).isEmpty();
    }

    @Test
    void namesWhatAnotherRunLeftAndLeavesItAlone() throws IOException {
        String left = "conformance-k1lled-cf-abcdefgh-a";
        EgressctlProcess.Result created = egressctl.run("create", left, "--machine-type", "small", "--image",
                "debian-12");
        assertThat(created.exitCode()).as(created.toString()).isZero();
        String id = created.out().trim();

        EgressctlProcess.Result run = egressctl.run("conformance", "fake");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.err()).contains(id + " is left by another conformance run", "'egressctl delete " + id + "'");
        assertThat(egressctl.run("get", id).exitCode()).as("the other run's instance is still there").isZero();
    }

    @Test
    void writesADocumentAndAJUnitReport() throws IOException {
        config("bootDelay: 100ms");
        Path report = temp.resolve("reports/fake.xml");

        EgressctlProcess.Result run = egressctl.run("conformance", "lab", "-o", "json", "--junit-xml", report.toString());

        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode document = JSON.readTree(run.out());
        assertThat(document.get("entry").asText()).isEqualTo("lab");
        assertThat(document.get("type").asText()).isEqualTo("fake");
        assertThat(document.get("namePrefix").asText()).matches("conformance-[a-z0-9]{6}-");
        int cases = document.get("cases").size();
        assertThat(document.get("passed").asInt()).isEqualTo(cases).isGreaterThanOrEqualTo(62);
        JsonNode first = document.get("cases").get(0);
        assertThat(first.get("group").asText()).isNotBlank();
        assertThat(first.get("outcome").asText()).isEqualTo("passed");
        assertThat(Files.readString(report)).contains("tests=\"" + cases + "\"", "failures=\"0\"",
                "ProviderConformanceTest$Create");
    }

    @Test
    void aCapabilityTheEntryLacksFailsItsCasesAndTheExitCode() throws IOException {
        config("bootDelay: 1h");

        EgressctlProcess.Result run = egressctl.run("conformance", "lab", "--capability", "REACHES_RUNNING",
                "--state-timeout", "1s");

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
        assertThat(run.out()).contains("  FAIL    ").containsPattern("\\d+ cases: \\d+ passed, [1-9]\\d* failed, 0 not run");
    }

    @Test
    void aMistakenOptionIsAUsageErrorAndRunsNothing() throws IOException {
        config("stateFile: lab.json");

        EgressctlProcess.Result placement = egressctl.run("conformance", "lab", "--placement", "zone-a/small");
        assertThat(placement.exitCode()).as(placement.toString()).isEqualTo(2);
        assertThat(placement.err()).contains("--placement 'zone-a/small' is not ZONE/MACHINE-TYPE/IMAGE");
        EgressctlProcess.Result missing = egressctl.run("conformance", "nosuch");
        assertThat(missing.exitCode()).as(missing.toString()).isEqualTo(2);
        assertThat(missing.err()).contains("no provider entry named 'nosuch'", "configured entries: lab");
        assertThat(placement.out() + missing.out()).doesNotContain("pass");
        assertThat(home.resolve(".local/state/egress/lab.json")).as("no instance was ever created").doesNotExist();
    }

    @Test
    void ctrlCStopsTheRunAndDeletesWhatItMade() throws Exception {
        // Slow calls, so the run is still going when the signal comes.
        config("stateFile: lab.json\n    faults: {get: {latency: 50ms}, create: {latency: 100ms}}");
        EgressctlProcess.Running running = egressctl.start("conformance", "lab");
        long end = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (Files.readAllLines(running.out()).stream().filter(line -> line.startsWith("  ")).count() < 12) {
            assertThat(running.process().isAlive()).as("the run is still going").isTrue();
            assertThat(System.nanoTime()).as("12 results within 2 minutes").isLessThan(end);
            Thread.sleep(50);
        }

        Process signal = new ProcessBuilder("kill", "-INT", Long.toString(running.process().pid())).start();
        assertThat(signal.waitFor()).isZero();
        EgressctlProcess.Result result = running.await();

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(130);
        assertThat(result.out()).contains("not run").contains("the run was cancelled");
        Path state = home.resolve(".local/state/egress/lab.json");
        assertThat(state).as("the cases before the signal created instances").exists();
        assertThat(Files.readString(state)).as("the state file after the interrupted run").doesNotContain("conformance-");
    }

    private void config(String settings) throws IOException {
        Path file = Files.writeString(work.resolve("egress.yaml"), """
                providers:
                  - name: lab
                    type: fake
                    zones: [zone-a, zone-b]
                    machineTypes: [small, large]
                    %s
                """.formatted(settings));
        egressctl.with("EGRESS_CONFIG", file.toString());
    }
}

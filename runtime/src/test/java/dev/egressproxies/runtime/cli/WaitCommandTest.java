package dev.egressproxies.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code wait} and {@code create --wait} in-process on the fake backend. The test component's clock
 * stands still, so an entry with a boot delay never boots: that is how a timeout is shown.
 */
class WaitCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path temp;
    CommandLineHarness egressctl;

    @BeforeEach
    void configure() throws IOException {
        Files.writeString(temp.resolve("egress.yaml"), """
                providers:
                  - name: local
                    type: fake
                    stateFile: %s
                  - name: slow
                    type: fake
                    bootDelay: 1h
                    stateFile: %s
                """.formatted(temp.resolve("local.json"), temp.resolve("slow.json")));
        egressctl = new CommandLineHarness(temp.resolve("home"), temp, Map.of());
    }

    @Test
    void createWaitPrintsTheIdAndWithJsonTheInstanceAsGetDoes() throws IOException {
        CommandLineHarness.Result created = egressctl.run("create", "demo", "--provider", "local",
                "--machine-type", "small", "--image", "debian-12", "--wait");
        assertThat(created.exitCode()).as(created.toString()).isZero();
        assertThat(created.out()).isEqualTo("local/zone-a/demo\n");

        CommandLineHarness.Result json = egressctl.run("create", "demo", "--provider", "local", "--machine-type",
                "small", "--image", "debian-12", "--wait", "-o", "json");
        JsonNode instance = JSON.readTree(json.out());
        assertThat(instance.get("id").asText()).isEqualTo("local/zone-a/demo");
        assertThat(instance.get("state").asText()).isEqualTo("RUNNING");
        assertThat(instance.get("ip").asText()).startsWith("198.51.100.");
        assertThat(instance.get("machineType").asText()).as("the fields get prints").isEqualTo("small");
    }

    @Test
    void waitPrintsTheInstancesOnceTheyRun() throws IOException {
        create("local", "one");
        create("local", "two");

        CommandLineHarness.Result table = egressctl.run("wait", "local/zone-a/one", "local/zone-a/two");
        assertThat(table.exitCode()).as(table.toString()).isZero();
        assertThat(table.out()).startsWith("ID").contains("local/zone-a/one").contains("RUNNING");

        JsonNode json = JSON.readTree(egressctl.run("wait", "local/zone-a/two", "local/zone-a/one", "-o", "json").out());
        assertThat(json).hasSize(2);
        assertThat(json.get(0).get("id").asText()).as("in the order asked").isEqualTo("local/zone-a/two");
        assertThat(json.get(1).get("ip").asText()).startsWith("198.51.100.");
    }

    @Test
    void aTimeoutExitsFourNamingWhatIsMissing() {
        create("slow", "booting");
        create("local", "ready");

        CommandLineHarness.Result result = egressctl.run("wait", "slow/zone-a/booting", "local/zone-a/ready",
                "--timeout", "600ms");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCode.TRANSIENT);
        assertThat(result.out()).isEmpty();
        assertThat(result.err()).contains("timed out after 600ms waiting for 1 of 2 proxies to be running")
                .contains("slow/zone-a/booting: it is PROVISIONING, without an address yet")
                .doesNotContain("local/zone-a/ready:");

        CommandLineHarness.Result createWait = egressctl.run("--timeout", "300ms", "create", "booting", "--provider",
                "slow", "--machine-type", "small", "--image", "debian-12", "--wait");
        assertThat(createWait.exitCode()).isEqualTo(ExitCode.TRANSIENT);
        assertThat(createWait.out()).as("the ID is printed before the wait").isEqualTo("slow/zone-a/booting\n");
    }

    @Test
    void anInstanceThatDoesNotExistExitsThreeUnlessWaitingForDeleted() throws IOException {
        CommandLineHarness.Result missing = egressctl.run("wait", "local/zone-a/never");
        assertThat(missing.exitCode()).as(missing.toString()).isEqualTo(ExitCode.NOT_FOUND);
        assertThat(missing.err()).contains("cannot wait for local/zone-a/never to be running");

        CommandLineHarness.Result gone = egressctl.run("wait", "local/zone-a/never", "--for", "deleted", "-o", "json");
        assertThat(gone.exitCode()).as(gone.toString()).isZero();
        assertThat(JSON.readTree(gone.out()).get(0).get("deleted").asBoolean()).isTrue();
        assertThat(egressctl.run("wait", "--for", "DELETED", "local/zone-a/never").out())
                .isEqualTo("deleted local/zone-a/never\n");
    }

    @Test
    void anInstanceStillThereTimesOutAWaitForDeleted() {
        create("local", "stays");
        CommandLineHarness.Result result = egressctl.run("wait", "local/zone-a/stays", "--for", "deleted",
                "--timeout", "300ms");
        assertThat(result.exitCode()).isEqualTo(ExitCode.TRANSIENT);
        assertThat(result.err()).contains("local/zone-a/stays: it still exists (RUNNING)");
    }

    @Test
    void helpSaysThatTimeoutBoundsTheWholeWait() {
        CommandLineHarness.Result help = egressctl.run("wait", "--help");
        assertThat(help.out().replaceAll("\\s+", " ")).contains("--timeout=DURATION How long to wait for them all")
                .doesNotContain("How long one provider call may take");
        assertThat(egressctl.run("get", "--help").out()).contains("How long one provider call may take");
    }

    @Test
    void usageErrorsExitTwo() {
        assertThat(egressctl.run("wait").exitCode()).isEqualTo(ExitCode.USAGE_OR_CONFIG);
        assertThat(egressctl.run("wait", "not-an-id").exitCode()).isEqualTo(ExitCode.USAGE_OR_CONFIG);
        assertThat(egressctl.run("wait", "nowhere/zone-a/x").err()).contains("no provider entry named 'nowhere'");
        assertThat(egressctl.run("wait", "local/zone-a/x", "--for", "stopped").exitCode())
                .isEqualTo(ExitCode.USAGE_OR_CONFIG);
    }

    private void create(String entry, String name) {
        CommandLineHarness.Result created = egressctl.run("create", name, "--provider", entry, "--machine-type",
                "small", "--image", "debian-12");
        assertThat(created.exitCode()).as(created.toString()).isZero();
    }
}

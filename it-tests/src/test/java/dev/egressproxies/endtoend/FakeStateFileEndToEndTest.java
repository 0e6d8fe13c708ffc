package dev.egressproxies.endtoend;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fake backend's state file as separate {@code egressctl} processes see it: a lock held by
 * another process is named while waiting and when giving up, reads create nothing, a corrupt file
 * fails only its entry, and the {@code flaky} example keeps its instances across runs. Tagged
 * {@code integration}: it needs the packaged distribution, which only {@code verify} builds.
 */
@Tag("integration")
class FakeStateFileEndToEndTest {
    /** Generous: the JVM's start, the 2 s before the waiting notice and the deadline, on a busy machine. */
    private static final Duration LOCKED_RUN_LIMIT = Duration.ofSeconds(45);

    @TempDir
    Path temp;
    Path home;
    Path state;
    Path config;
    EgressctlProcess egressctl;

    @BeforeEach
    void prepare() throws IOException {
        home = Files.createDirectories(temp.resolve("home"));
        Path work = Files.createDirectories(temp.resolve("work"));
        state = temp.resolve("state");
        config = Files.writeString(work.resolve("egress.yaml"), """
                providers:
                  - name: good
                    type: fake
                    stateFile: %1$s/good.json
                  - name: broken
                    type: fake
                    stateFile: %1$s/broken.json
                """.formatted(state));
        egressctl = new EgressctlProcess(home, work);
    }

    @Test
    void aLockHeldByAnotherProcessIsNamedWhileWaitingAndWhenTheDeadlinePasses() throws IOException {
        Files.createDirectories(state);
        Path stateFile = state.resolve("good.json");
        long holder = ProcessHandle.current().pid();
        try (FileChannel channel = FileChannel.open(state.resolve("good.json.lock"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
             FileLock held = channel.lock()) {
            // Recorded as a fake provider holding the lock records itself.
            channel.write(StandardCharsets.UTF_8.encode("pid=" + holder + " host=lock-holder since="
                    + Instant.parse("2030-01-01T00:00:00Z") + "\n"));

            long start = System.nanoTime();
            EgressctlProcess.Result waited = egressctl.run("--timeout", "4s", "create", "demo", "--provider", "good",
                    "--machine-type", "small", "--image", "debian-12");

            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(LOCKED_RUN_LIMIT);
            assertThat(waited.exitCode()).as(waited.toString()).isEqualTo(4);
            assertThat(waited.err()).as(waited.toString())
                    .contains("is waiting for the lock on state file " + stateFile)
                    .contains("gave up after")
                    .contains("process " + holder + " on host lock-holder (since 2030-01-01T00:00:00Z) holds it")
                    .doesNotContain("deadline exceeded before the backend answered");
            assertThat(held.isValid()).isTrue();
        }

        EgressctlProcess.Result created = egressctl.run("create", "demo", "--provider", "good",
                "--machine-type", "small", "--image", "debian-12");
        assertThat(created.exitCode()).as(created.toString()).isZero();
    }

    @Test
    void readingCommandsCreateNoDirectories() {
        EgressctlProcess.Result listed = egressctl.run("list");
        EgressctlProcess.Result missing = egressctl.run("get", "good/zone-a/nothing");

        assertThat(listed.exitCode()).as(listed.toString()).isZero();
        assertThat(missing.exitCode()).as(missing.toString()).isEqualTo(3);
        assertThat(state).as("the state directory after list and get").doesNotExist();
    }

    @Test
    void aCorruptStateFileFailsOnlyItsEntry() throws IOException {
        Files.createDirectories(state);
        Files.writeString(state.resolve("broken.json"), "{\"version\": 3, \"instances\": [");

        EgressctlProcess.Result created = egressctl.run("create", "demo", "--provider", "good",
                "--machine-type", "small", "--image", "debian-12");
        EgressctlProcess.Result broken = egressctl.run("create", "demo", "--provider", "broken",
                "--machine-type", "small", "--image", "debian-12");

        assertThat(created.exitCode()).as(created.toString()).isZero();
        assertThat(broken.exitCode()).as(broken.toString()).isEqualTo(2);
        assertThat(broken.err()).contains("state file " + state.resolve("broken.json") + " is corrupt");
    }

    @Test
    void theFlakyExampleKeepsItsInstancesAcrossRuns() throws IOException {
        Path examples = Path.of(System.getProperty("user.dir")).resolveSibling("examples");
        Path flakyConfig = examples.resolve("fake.yaml");

        EgressctlProcess.Result created = egressctl.run("--config", flakyConfig.toString(), "create", "demo",
                "--provider", "flaky", "--machine-type", "small", "--image", "debian-12");
        EgressctlProcess.Result listed = egressctl.run("--config", flakyConfig.toString(), "list", "--provider",
                "flaky");

        assertThat(created.exitCode()).as(created.toString()).isZero();
        assertThat(listed.exitCode()).as(listed.toString()).isZero();
        assertThat(listed.out()).as("a later run lists what an earlier one created").contains("flaky/zone-a/demo");
        assertThat(home.resolve(".local/state/egress/fake/flaky.json")).isRegularFile();
    }
}

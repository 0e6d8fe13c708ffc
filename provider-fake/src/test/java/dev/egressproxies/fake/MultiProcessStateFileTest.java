package dev.egressproxies.fake;

import static dev.egressproxies.fake.TestProviders.deadline;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.egressproxies.api.Instance;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Separate JVMs, of two provider entries, creating instances on one state file at the same time
 * lose nothing and corrupt nothing, and each entry lists exactly the instances its processes created.
 */
class MultiProcessStateFileTest {
    private static final int WORKERS = 4;
    private static final int INSTANCES_PER_WORKER = 25;
    /** The entries the workers take turns at, so each entry has two processes and each process a rival entry. */
    private static final List<String> ENTRIES = List.of("multi-even", "multi-odd");

    @TempDir
    Path directory;

    private final List<Process> workers = new ArrayList<>();

    @AfterEach
    void stopLeftoverWorkers() {
        workers.forEach(Process::destroyForcibly);
    }

    @Test
    void fourProcessesCreatingConcurrentlyOnOneFileLoseNoInstance() throws Exception {
        Path stateFile = directory.resolve("shared/state.json");
        for (int index = 0; index < WORKERS; index++) {
            workers.add(startWorker(stateFile, "worker" + index, ENTRIES.get(index % ENTRIES.size())));
        }
        awaitReady();
        Files.createFile(directory.resolve("go"));
        for (int index = 0; index < WORKERS; index++) {
            Process worker = workers.get(index);
            if (!worker.waitFor(90, TimeUnit.SECONDS)) {
                fail("worker%d did not finish within 90 s", index);
            }
            assertThat(worker.exitValue()).as("exit code of worker%d, stderr: %s", index, stderr(index)).isZero();
        }

        List<Instance> even = listManaged(stateFile, ENTRIES.get(0));
        List<Instance> odd = listManaged(stateFile, ENTRIES.get(1));

        assertThat(even).hasSize(2 * INSTANCES_PER_WORKER).extracting(Instance::id)
                .contains("zone-a/worker0-0", "zone-a/worker2-24").noneMatch(id -> id.matches("zone-a/worker[13]-.*"));
        assertThat(odd).hasSize(2 * INSTANCES_PER_WORKER).extracting(Instance::id)
                .contains("zone-a/worker1-0", "zone-a/worker3-24").noneMatch(id -> id.matches("zone-a/worker[02]-.*"));
        assertThat(Stream.concat(even.stream(), odd.stream()).map(Instance::ip).distinct())
                .hasSize(WORKERS * INSTANCES_PER_WORKER);
        JsonNode state = new ObjectMapper().readTree(stateFile.toFile());
        assertThat(state.get("version").intValue()).isEqualTo(3);
        assertThat(state.get("instances")).hasSize(WORKERS * INSTANCES_PER_WORKER);
        try (Stream<Path> files = Files.list(stateFile.getParent())) {
            assertThat(files.map(file -> file.getFileName().toString()).collect(Collectors.toList()))
                    .containsExactlyInAnyOrder("state.json", "state.json.lock");
        }
    }

    private List<Instance> listManaged(Path stateFile, String entry) {
        return TestProviders.build(entry, FakeConfig.defaults().withStateFile(stateFile),
                new ManualClock(TestProviders.START), directory).listManaged(deadline());
    }

    private Process startWorker(Path stateFile, String name, String entry) throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        // Plain class path in the child: this JVM's module path and class path together hold the
        // main classes, the test classes and every dependency.
        String classPath = Stream.of(System.getProperty("jdk.module.path"), System.getProperty("java.class.path"))
                .filter(Objects::nonNull)
                .filter(path -> !path.isEmpty())
                .collect(Collectors.joining(File.pathSeparator));
        // The flags shorten start-up on small machines; the workers run for a second or two.
        return new ProcessBuilder(java.toString(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-cp", classPath, StateFileWorker.class.getName(),
                stateFile.toString(), name, Integer.toString(INSTANCES_PER_WORKER), directory.toString(), entry)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(directory.resolve(name + ".stderr").toFile())
                .start();
    }

    private void awaitReady() throws Exception {
        long giveUpAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        for (int index = 0; index < WORKERS; index++) {
            Path ready = directory.resolve("ready-worker" + index);
            while (!Files.exists(ready)) {
                Process worker = workers.get(index);
                if (!worker.isAlive()) {
                    fail("worker%d exited with %d before it was ready, stderr: %s", index, worker.exitValue(),
                            stderr(index));
                }
                if (System.nanoTime() - giveUpAt > 0) {
                    fail("worker%d was not ready within 90 s", index);
                }
                TimeUnit.MILLISECONDS.sleep(10);
            }
        }
    }

    private String stderr(int index) throws IOException {
        return Files.readString(directory.resolve("worker" + index + ".stderr"));
    }
}

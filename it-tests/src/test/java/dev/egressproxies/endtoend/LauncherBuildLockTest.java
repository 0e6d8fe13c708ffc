package dev.egressproxies.endtoend;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./egressctl} launcher script run four times at once on a tree that needs a build:
 * exactly one build runs, the others wait for it and then do not build again. The script runs in
 * a copy of the tree's top level whose {@code mvnw} is a stand-in that notices an overlapping
 * build, so the test needs no Maven and touches nothing of the real tree.
 */
class LauncherBuildLockTest {
    private static final Path SCRIPT = Path.of(System.getProperty("egressctl.home"), "..", "..", "..", "egressctl")
            .normalize();

    @TempDir
    Path root;

    @Test
    void concurrentFirstRunsBuildOnceAndAllRun() throws Exception {
        Files.copy(SCRIPT, root.resolve("egressctl"));
        Path log = root.resolve("builds.log");
        executable(root.resolve("egressctl"));
        executable(Files.writeString(root.resolve("mvnw"), """
                #!/bin/sh
                # Stands in for Maven: a second build while one runs is logged as an overlap.
                root=$(cd "$(dirname "$0")" && pwd -P)
                if ! mkdir "$root/building" 2>/dev/null; then echo overlap >> "$root/builds.log"; exit 1; fi
                echo build >> "$root/builds.log"
                sleep 1
                mkdir -p "$root/runtime/target/egressctl/bin"
                printf '#!/bin/sh\\necho "ran $*"\\n' > "$root/runtime/target/egressctl/bin/egressctl"
                chmod +x "$root/runtime/target/egressctl/bin/egressctl"
                rmdir "$root/building"
                """));

        List<Process> runs = new ArrayList<>();
        for (int index = 0; index < 4; index++) {
            runs.add(new ProcessBuilder(root.resolve("egressctl").toString(), "--version", String.valueOf(index))
                    .redirectError(root.resolve("err-" + index + ".txt").toFile())
                    .redirectOutput(root.resolve("out-" + index + ".txt").toFile()).start());
        }
        for (int index = 0; index < 4; index++) {
            assertThat(runs.get(index).waitFor(60, TimeUnit.SECONDS)).as("run %d finished", index).isTrue();
            assertThat(runs.get(index).exitValue()).as(Files.readString(root.resolve("err-" + index + ".txt"))).isZero();
            assertThat(Files.readString(root.resolve("out-" + index + ".txt"))).isEqualTo("ran --version " + index + "\n");
        }
        assertThat(Files.readAllLines(log, StandardCharsets.UTF_8)).containsExactly("build");
    }

    private static Path executable(Path file) throws IOException {
        return Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}

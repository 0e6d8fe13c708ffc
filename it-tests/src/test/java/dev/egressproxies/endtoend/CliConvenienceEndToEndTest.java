package dev.egressproxies.endtoend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a person and a script see of the packaged launcher: {@code create --wait} and {@code wait}
 * against a fake entry that boots in real time, shell completion run by a real bash, and progress
 * decided by what standard error really is (a pseudo-terminal made by {@code script}, a file) on
 * this JDK and, where installed, on JDK 25. Tagged {@code integration}: it needs the packaged
 * distribution, which only {@code verify} builds.
 */
@Tag("integration")
class CliConvenienceEndToEndTest {
    /** Where CI images keep a second JDK; the progress check runs on it too when it is there. */
    private static final Path JDK_25 = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64");

    @TempDir
    Path temp;
    Path home;
    Path work;
    EgressctlProcess egressctl;

    @BeforeEach
    void prepare() throws IOException {
        home = Files.createDirectories(temp.resolve("home"));
        work = Files.createDirectories(temp.resolve("work"));
        Files.writeString(work.resolve("egress.yaml"), """
                providers:
                  - name: lab
                    type: fake
                    bootDelay: 2s
                    stateFile: %1$s/lab.json
                  - name: stuck
                    type: fake
                    bootDelay: 1h
                    stateFile: %1$s/stuck.json
                """.formatted(temp.resolve("state")));
        egressctl = new EgressctlProcess(home, work);
    }

    @Test
    void createWaitReturnsOnceTheProxyRunsAndWaitTimesOutNamingWhatIsMissing() throws IOException {
        long started = System.nanoTime();
        EgressctlProcess.Result created = egressctl.run("create", "egress-1", "--provider", "lab", "--machine-type",
                "small", "--image", "debian-12", "--wait");
        assertThat(created.exitCode()).as(created.toString()).isZero();
        assertThat(created.out()).isEqualTo("lab/zone-a/egress-1\n");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("it waited for the 2 s boot")
                .isGreaterThanOrEqualTo(Duration.ofSeconds(2));

        EgressctlProcess.Result json = egressctl.run("-o", "json", "wait", "lab/zone-a/egress-1");
        assertThat(json.exitCode()).as(json.toString()).isZero();
        assertThat(json.out()).contains("\"state\" : \"RUNNING\"").contains("\"ip\" : \"198.51.100.");

        egressctl.run("create", "egress-2", "--provider", "stuck", "--machine-type", "small", "--image", "debian-12");
        EgressctlProcess.Result timedOut = egressctl.run("wait", "stuck/zone-a/egress-2", "lab/zone-a/egress-1",
                "--timeout", "2s");
        assertThat(timedOut.exitCode()).as(timedOut.toString()).isEqualTo(4);
        assertThat(timedOut.err()).contains("timed out after 2s waiting for 1 of 2 proxies to be running")
                .contains("stuck/zone-a/egress-2: it is PROVISIONING, without an address yet");

        assertThat(egressctl.run("wait", "lab/zone-a/nothing").exitCode()).isEqualTo(3);
        assertThat(egressctl.run("delete", "lab/zone-a/egress-1").exitCode()).isZero();
        assertThat(egressctl.run("wait", "lab/zone-a/egress-1", "--for", "deleted").out())
                .isEqualTo("deleted lab/zone-a/egress-1\n");
    }

    @Test
    void bashCompletesCommandsEntriesAndIdsFromTheLocalCache() throws Exception {
        egressctl.run("create", "egress-1", "--provider", "lab", "--machine-type", "small", "--image", "debian-12");
        Path script = Files.writeString(temp.resolve("complete.sh"), """
                source <(egressctl completion bash)
                complete_line() {
                  COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMP_LINE="$*"; COMPREPLY=()
                  _egressctl_complete 2>/dev/null
                  echo "${COMPREPLY[*]}"
                }
                complete_line egressctl wa
                complete_line egressctl get ""
                complete_line egressctl create x --provider ""
                complete_line egressctl wait --for ""
                """);
        String output = shell("bash " + script, null);
        assertThat(output.lines().toList()).containsExactly("wait", "lab/zone-a/egress-1", "lab stuck",
                "running deleted");
    }

    @Test
    void progressIsDrawnOnlyWhenStandardErrorIsATerminal() throws Exception {
        checkProgressDecision(null);
    }

    @Test
    void progressIsDecidedTheSameWayOnJdk25() throws Exception {
        assumeTrue(Files.isExecutable(JDK_25.resolve("bin/java")), "no JDK 25 at " + JDK_25);
        checkProgressDecision(JDK_25);
    }

    private void checkProgressDecision(Path javaHome) throws Exception {
        String list = EgressctlProcess.distribution().resolve("bin/egressctl") + " -v list";
        // A pseudo-terminal for all three streams, as a terminal emulator gives: script copies it to its output.
        assertThat(shell("script -q -e -c '" + list + "' /dev/null", javaHome))
                .contains("Progress of long operations is drawn on standard error");
        // Standard output to a file, standard error still on the terminal: progress stays.
        assertThat(shell("script -q -e -c '" + list + " > " + temp.resolve("list.txt") + "' /dev/null", javaHome))
                .contains("Progress of long operations is drawn on standard error");
        // Standard error to a file from a terminal: no redraws in the log.
        shell("script -q -e -c '" + list + " 2> " + temp.resolve("list.log") + "' /dev/null", javaHome);
        assertThat(Files.readString(temp.resolve("list.log"))).contains("Progress of long operations is not drawn");
        // -o json on a terminal, and the overrides.
        assertThat(shell("script -q -e -c '" + list + " -o json' /dev/null", javaHome))
                .contains("is not drawn (-o json)");
        assertThat(shell("script -q -e -c '" + list + " --progress never' /dev/null", javaHome))
                .contains("is not drawn (standard error is no terminal, or --progress never)");
        assertThat(shell(list + " --progress always 2>&1 | cat", javaHome))
                .contains("Progress of long operations is drawn on standard error");
    }

    /** Runs a bash command line with the launcher on the PATH and this test's home; returns its output. */
    private String shell(String commandLine, Path javaHome) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(List.of("bash", "-c", commandLine)).directory(work.toFile())
                .redirectErrorStream(true);
        builder.environment().keySet().removeIf(name -> name.startsWith("EGRESS") || name.startsWith("XDG_"));
        builder.environment().put("HOME", home.toString());
        builder.environment().put("JAVA_HOME", javaHome != null ? javaHome.toString() : System.getProperty("java.home"));
        builder.environment().put("EGRESSCTL_NO_CDS_CACHE", "1");
        builder.environment().put("PATH", EgressctlProcess.distribution().resolve("bin") + ":"
                + System.getenv("PATH"));
        Process process = builder.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        byte[] output = process.getInputStream().readAllBytes();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new String(output, StandardCharsets.UTF_8).replace("\r", "");
    }
}

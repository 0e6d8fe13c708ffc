package dev.egressproxies.kvm.common.ssh;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a command-line program the SSH tests need (ssh-keygen, openssl, kill, virsh) and fails the
 * test, naming the Debian package to install, when it is missing or does not succeed.
 */
final class Command {
    private static final long TIMEOUT_SECONDS = 60;

    private Command() {
    }

    /** Runs {@code command} and returns what it printed on standard output. */
    static String run(String debianPackage, String... command) throws IOException, InterruptedException {
        Path output = Files.createTempFile("command", ".out");
        try {
            Process process;
            try {
                process = new ProcessBuilder(command)
                        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                        .redirectOutput(output.toFile())
                        .redirectErrorStream(true)
                        .start();
            } catch (IOException e) {
                return fail(command[0] + " cannot be started (" + e.getMessage() + "): install it with"
                        + " 'apt-get install -y --no-install-recommends " + debianPackage + "'");
            }
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
                fail(String.join(" ", command) + " ran for over " + TIMEOUT_SECONDS + " seconds");
            }
            String printed = Files.readString(output, StandardCharsets.UTF_8);
            if (process.exitValue() != 0) {
                fail(String.join(" ", command) + " exited with " + process.exitValue() + ":\n" + printed);
            }
            return printed;
        } finally {
            Files.deleteIfExists(output);
        }
    }

    /**
     * Sends {@code signal} (STOP, CONT, KILL) to each of the given processes, skipping those that
     * ended in the meantime (sshd's per-connection processes come and go).
     */
    static void signal(String signal, List<Long> pids) throws IOException, InterruptedException {
        for (long pid : pids) {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!kill.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
                fail("kill -" + signal + " " + pid + " did not finish");
            }
            boolean alive = ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
            if (kill.exitValue() != 0 && alive) {
                fail("kill -" + signal + " " + pid + " exited with " + kill.exitValue());
            }
        }
    }
}

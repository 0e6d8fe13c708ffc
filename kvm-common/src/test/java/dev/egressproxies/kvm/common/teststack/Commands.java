package dev.egressproxies.kvm.common.teststack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a process with a time limit, for the stack script and virsh. */
public final class Commands {
    private Commands() {
    }

    /**
     * Runs a command and returns its standard output.
     *
     * @throws AssertionError with the command's output when it fails or overruns
     */
    public static String run(long timeoutSeconds, String... command) {
        try {
            Path output = Files.createTempFile("command", ".out");
            try {
                Process process = new ProcessBuilder(List.of(command)).redirectErrorStream(true)
                        .redirectOutput(output.toFile()).start();
                if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    throw new AssertionError(String.join(" ", command) + " did not finish in "
                            + timeoutSeconds + " s:\n" + Files.readString(output, StandardCharsets.UTF_8));
                }
                String text = Files.readString(output, StandardCharsets.UTF_8);
                if (process.exitValue() != 0) {
                    throw new AssertionError(String.join(" ", command) + " exited with " + process.exitValue()
                            + ":\n" + text);
                }
                return text;
            } finally {
                Files.deleteIfExists(output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}


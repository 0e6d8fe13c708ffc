package dev.egressproxies.integration.kvm;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@code main} class of the test class path run in a JVM of its own (this JVM's {@code java} and
 * class path, no build tool in between), whose standard output the test reads line by line and
 * whose standard error goes to a log file. {@link #kill()} sends SIGKILL, as {@code kill -9} would;
 * {@link #close()} kills it too, so a failing test never leaves a JVM running.
 */
final class ChildJvm implements AutoCloseable {
    /** Linux reports a process killed by signal N with the exit status 128 + N. */
    static final int KILLED_BY_SIGKILL = 128 + 9;

    private final Process process;
    private final Path log;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final BlockingQueue<Optional<String>> unread = new LinkedBlockingQueue<>();

    private ChildJvm(Process process, Path log) {
        this.process = process;
        this.log = log;
        Thread reader = new Thread(this::readOutput, "child-jvm-stdout-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts {@code main} with {@code arguments}; its standard error is written to {@code log}. */
    static ChildJvm start(Class<?> main, Path log, String... arguments) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // Quick start-up for a short program.
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command)
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                .redirectError(log.toFile())
                .start();
        return new ChildJvm(process, log);
    }

    /**
     * Waits for a line starting with {@code prefix}; empty when the JVM ended or {@code timeout}
     * passed without one.
     */
    Optional<String> awaitLine(String prefix, Duration timeout) throws InterruptedException {
        long until = System.nanoTime() + timeout.toNanos();
        while (true) {
            Optional<String> line = unread.poll(until - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (line == null) {
                return Optional.empty();
            }
            if (line.isEmpty()) {
                // The end stays for the next caller.
                unread.add(line);
                return line;
            }
            if (line.get().startsWith(prefix)) {
                return line;
            }
        }
    }

    /** Whether the JVM still runs. */
    boolean isAlive() {
        return process.isAlive();
    }

    /** Kills the JVM with SIGKILL and returns its exit status once it is gone. */
    int kill() throws InterruptedException {
        // On Linux, destroyForcibly() is kill(pid, SIGKILL): no shutdown hooks, no finally blocks.
        process.destroyForcibly();
        return process.waitFor();
    }

    /** Waits for the JVM to end by itself; its exit status, or empty when it still runs after {@code timeout}. */
    Optional<Integer> awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)
                ? Optional.of(process.exitValue()) : Optional.empty();
    }

    /** What the JVM printed so far: its standard output, then its log. */
    String output() {
        String logged;
        try {
            logged = Files.exists(log) ? Files.readString(log) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return "standard output:\n" + String.join("\n", lines) + "\nstandard error (" + log + "):\n" + logged;
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }

    private void readOutput() {
        try (BufferedReader output = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = output.readLine(); line != null; line = output.readLine()) {
                lines.add(line);
                unread.add(Optional.of(line));
            }
        } catch (IOException closed) {
            // The JVM was killed; what it printed is in the list.
        } finally {
            unread.add(Optional.empty());
        }
    }
}

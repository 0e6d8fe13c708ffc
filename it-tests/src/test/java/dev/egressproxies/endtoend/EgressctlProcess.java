package dev.egressproxies.endtoend;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs the packaged {@code egressctl} launcher (runtime/target/egressctl) as a separate process,
 * the way a person does, with its own home, working directory and environment. Public for the
 * end-to-end tests of other packages, such as the KVM ones next to their stack's helpers.
 */
public final class EgressctlProcess {
    private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

    private final Path launcher;
    private final Path home;
    private final Path workingDirectory;
    private final Map<String, String> environment = new HashMap<>();
    private Duration timeout = DEFAULT_TIMEOUT;

    public EgressctlProcess(Path home, Path workingDirectory) {
        this(distribution().resolve("bin/egressctl"), home, workingDirectory);
    }

    /** Runs another launcher, such as one unpacked from the release archive or a symlink to it. */
    public EgressctlProcess(Path launcher, Path home, Path workingDirectory) {
        if (!Files.isExecutable(launcher)) {
            throw new IllegalStateException(launcher + " is missing: build it with ./mvnw package -pl runtime -am");
        }
        this.launcher = launcher;
        this.home = home;
        this.workingDirectory = workingDirectory;
    }

    /** Returns the packaged distribution's folder (runtime/target/egressctl). */
    public static Path distribution() {
        String distribution = System.getProperty("egressctl.home");
        if (distribution == null) {
            throw new IllegalStateException("system property egressctl.home is not set; run through Maven");
        }
        return Path.of(distribution);
    }

    /** Sets an environment variable for every later run. */
    public EgressctlProcess with(String name, String value) {
        environment.put(name, value);
        return this;
    }

    /** Lets every later run take up to {@code limit} (60 seconds unless set) before it counts as hung. */
    public EgressctlProcess withTimeout(Duration limit) {
        this.timeout = limit;
        return this;
    }

    /** Runs one command line and waits for it. */
    public Result run(String... arguments) {
        return start(arguments).await();
    }

    /** Starts one command line without waiting. */
    public Running start(String... arguments) {
        // With Ctrl-C's signal as a terminal delivers it: tests started in the background of a
        // script inherit an ignored SIGINT, which the JVM then keeps ignored. env execs, so the
        // process's pid stays egressctl's.
        List<String> command = new ArrayList<>(List.of("env", "--default-signal=INT"));
        command.add(launcher.toString());
        command.addAll(List.of(arguments));
        ProcessBuilder builder = new ProcessBuilder(command).directory(workingDirectory.toFile());
        Map<String, String> processEnvironment = builder.environment();
        processEnvironment.keySet().removeIf(name -> name.startsWith("EGRESS") || name.startsWith("XDG_")
                || name.startsWith("OTEL_"));
        processEnvironment.put("HOME", home.toString());
        processEnvironment.put("JAVA_HOME", System.getProperty("java.home"));
        // No class-data-sharing archive made in the background of a run, which could still be
        // writing into the test's home when the test deletes it; a test may ask for one.
        processEnvironment.put("EGRESSCTL_NO_CDS_CACHE", "1");
        processEnvironment.putAll(environment);
        try {
            Path out = Files.createTempFile(home, "out", ".txt");
            Path err = Files.createTempFile(home, "err", ".txt");
            Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
            return new Running(process, out, err, String.join(" ", arguments), timeout);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A started command line. */
    public record Running(Process process, Path out, Path err, String commandLine, Duration timeout) {
        /** Waits for the command line to finish. */
        public Result await() {
            try {
                if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    process.destroyForcibly();
                    throw new AssertionError("egressctl " + commandLine + " did not finish in " + timeout);
                }
                return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                        Files.readString(err, StandardCharsets.UTF_8), commandLine);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
                throw new AssertionError("interrupted", e);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /**
     * What one run did.
     *
     * @param exitCode    its exit code
     * @param out         standard output
     * @param err         standard error
     * @param commandLine the arguments, for messages
     */
    public record Result(int exitCode, String out, String err, String commandLine) {
        @Override
        public String toString() {
            return "egressctl " + commandLine + " -> exit " + exitCode + "\n--- out\n" + out + "--- err\n" + err;
        }
    }
}

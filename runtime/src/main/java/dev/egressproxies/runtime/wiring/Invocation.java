package dev.egressproxies.runtime.wiring;

import dev.egressproxies.runtime.output.OutputFormat;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * Everything one run of {@code egressctl} starts from: its global options and its surroundings
 * (environment, directories, streams), passed in rather than read from globals so tests can run
 * many invocations in one JVM.
 *
 * @param configOption the {@code --config} option, or null
 * @param output       the {@code -o} option
 * @param timeout      the {@code --timeout} option: how long one provider call may take
 * @param verbosity    how many {@code -v} options were given: 0 logs warnings, 1 debug lines but the
 *                     SSH library's (info), 2 or more the SSH library's debug lines too
 * @param environment  the process environment
 * @param workingDirectory the current directory
 * @param userHome     the user's home directory
 * @param out          standard output
 * @param err          standard error
 * @param terminal     whether progress may be drawn on standard error: it is a terminal, or {@code
 *                     --progress} says so (still never with {@code -o json})
 */
public record Invocation(Path configOption, OutputFormat output, Duration timeout, int verbosity,
                         Map<String, String> environment, Path workingDirectory, Path userHome,
                         PrintStream out, PrintStream err, boolean terminal) {
    /** Copies the environment. */
    public Invocation {
        environment = Map.copyOf(environment);
    }

    /** This invocation with {@code terminal} decided otherwise ({@code --progress}). */
    public Invocation withTerminal(boolean drawable) {
        return new Invocation(configOption, output, timeout, verbosity, environment, workingDirectory, userHome, out,
                err, drawable);
    }
}

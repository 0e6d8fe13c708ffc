package dev.egressproxies.runtime.cli;

import dev.egressproxies.api.ProviderException;
import dev.egressproxies.registry.ConfigurationException;
import dev.egressproxies.runtime.config.ConfigException;
import dev.egressproxies.runtime.wiring.Invocation;
import dev.egressproxies.runtime.wiring.Session;
import java.util.function.Function;
import picocli.CommandLine;

/**
 * Runs one {@code egressctl} command line and turns its outcome into an exit code, printing
 * errors to standard error as one line that says what to fix.
 */
public final class Egressctl {
    private final RootCommand.Surroundings surroundings;
    private final Function<Invocation, Session> sessions;

    /**
     * Creates the tool.
     *
     * @param surroundings the process's environment and streams
     * @param sessions     opens the session of an invocation (the Dagger component)
     */
    public Egressctl(RootCommand.Surroundings surroundings, Function<Invocation, Session> sessions) {
        this.surroundings = surroundings;
        this.sessions = sessions;
    }

    /** Runs the command line and returns the exit code. */
    public int run(String... arguments) {
        RootCommand root = new RootCommand(surroundings, sessions);
        CommandLine commandLine = new CommandLine(root)
                .setCaseInsensitiveEnumValuesAllowed(true)
                .setOut(new java.io.PrintWriter(surroundings.out(), true))
                .setErr(new java.io.PrintWriter(surroundings.err(), true))
                .setExecutionExceptionHandler((exception, line, parsed) -> handle(exception))
                .setParameterExceptionHandler((exception, arguments1) -> usageError(exception));
        VersionProvider version = new VersionProvider(root);
        commandLine.getCommandSpec().versionProvider(version);
        commandLine.getSubcommands().values().forEach(sub -> sub.getCommandSpec().versionProvider(version));
        commandLine.getCommandSpec().exitCodeOnUsageHelp(ExitCode.OK);
        try {
            return commandLine.execute(arguments);
        } finally {
            try {
                root.closeSession();
            } catch (RuntimeException e) {
                surroundings.err().println("egressctl: while closing: " + e.getMessage());
            }
        }
    }

    private int handle(Exception exception) {
        if (exception instanceof ProviderException error) {
            return fail(error.getMessage(), ExitCode.of(error.kind()));
        }
        if (exception instanceof ConfigException || exception instanceof ConfigurationException) {
            return fail(exception.getMessage(), ExitCode.USAGE_OR_CONFIG);
        }
        if (exception instanceof IllegalArgumentException) {
            return fail(exception.getMessage(), ExitCode.USAGE_OR_CONFIG);
        }
        String detail = exception.getMessage() == null ? exception.toString() : exception.getMessage();
        return fail("unexpected failure: " + detail + " (run with -v for details)", ExitCode.FAILURE);
    }

    private int usageError(CommandLine.ParameterException exception) {
        CommandLine command = exception.getCommandLine();
        surroundings.err().println("egressctl: " + exception.getMessage());
        surroundings.err().println("Run '" + command.getCommandSpec().qualifiedName() + " --help' for usage.");
        return ExitCode.USAGE_OR_CONFIG;
    }

    private int fail(String message, int code) {
        surroundings.err().println("egressctl: " + message);
        return code;
    }
}

package dev.egressproxies.runtime.cli;

import dev.egressproxies.api.ProviderException;
import dev.egressproxies.registry.ConfigurationException;
import dev.egressproxies.runtime.config.ConfigException;
import dev.egressproxies.runtime.replicas.EtcdException;
import dev.egressproxies.runtime.wiring.Invocation;
import dev.egressproxies.runtime.wiring.Session;
import dev.egressproxies.runtime.progress.ProgressMode;
import java.util.List;
import java.util.function.Function;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ScopeType;

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
        ProgressMode[] progress = {ProgressMode.AUTO};
        RootCommand root = new RootCommand(surroundings,
                invocation -> sessions.apply(invocation.withTerminal(progress[0].draws(invocation.terminal()))));
        CommandLine commandLine = new CommandLine(root)
                .setCaseInsensitiveEnumValuesAllowed(true)
                .setOut(new java.io.PrintWriter(surroundings.out(), true))
                .setErr(new java.io.PrintWriter(surroundings.err(), true))
                .setExecutionExceptionHandler((exception, line, parsed) -> handle(exception))
                .setParameterExceptionHandler((exception, arguments1) -> usageError(exception));
        commandLine.getCommandSpec().addOption(progressOption(progress));
        describeTimeoutAsTheWait(commandLine.getSubcommands().get("wait").getCommandSpec());
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

    /**
     * {@code --progress auto|always|never}, for every command. Declared here rather than on {@link
     * RootCommand}: it only decides what the session is opened with.
     */
    private static OptionSpec progressOption(ProgressMode[] progress) {
        return OptionSpec.builder("--progress").paramLabel("WHEN").type(ProgressMode.class)
                .scopeType(ScopeType.INHERIT)
                .defaultValue("auto")
                .completionCandidates(List.of("auto", "always", "never"))
                .description("Draw progress of long operations on standard error: auto (default: when it is a"
                        + " terminal), always (also into a file or pipe) or never; never with -o json.")
                .setter(new CommandLine.Model.ISetter() {
                    @Override
                    @SuppressWarnings("unchecked")
                    public <T> T set(T value) {
                        T previous = (T) progress[0];
                        progress[0] = value == null ? ProgressMode.AUTO : (ProgressMode) value;
                        return previous;
                    }
                })
                .build();
    }

    /** On {@code wait}, the inherited --timeout bounds the whole wait; its help says so. */
    private static void describeTimeoutAsTheWait(CommandLine.Model.CommandSpec wait) {
        OptionSpec inherited = wait.findOption("--timeout");
        if (inherited != null) {
            wait.remove(inherited);
            wait.addOption(inherited.toBuilder().description("How long to wait for them all, like 30s or 10m"
                    + " (default 5m here; each poll may use what is left).").build());
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
        if (exception instanceof EtcdException unreachable) {
            return fail(unreachable.getMessage(), ExitCode.TRANSIENT);
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

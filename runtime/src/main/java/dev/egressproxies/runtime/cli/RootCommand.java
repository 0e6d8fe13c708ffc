package dev.egressproxies.runtime.cli;

import dev.egressproxies.runtime.output.OutputFormat;
import dev.egressproxies.runtime.wiring.Invocation;
import dev.egressproxies.runtime.wiring.Session;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * The {@code egressctl} command: its global options, and the session its subcommands share.
 */
@Command(name = "egressctl",
        description = "Creates, inspects and deletes egress-proxy VMs on the configured provider entries.",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        subcommands = {ProvidersCommand.class, CheckCommand.class, CreateCommand.class, GetCommand.class,
            DeleteCommand.class, ListCommand.class, ApplyCommand.class, ServeCommand.class, ConformanceCommand.class,
            WaitCommand.class, CordonCommand.class, CordonCommand.Uncordon.class, DrainCommand.class, ImagesCommand.class,
            CompletionCommand.class},
        footer = {"",
            "Config search order: --config, $EGRESS_CONFIG, ./egress.yaml, ~/.config/egress/config.yaml,"
                + " else a built-in default with one 'fake' entry.",
            "Exit codes: 0 ok, 1 other failure, 2 usage or config error, 3 not found, 4 transient (retry),"
                + " 5 quota exceeded (retry later), 130 interrupted (Ctrl-C)."})
public final class RootCommand {

    @Option(names = "--config", scope = ScopeType.INHERIT, paramLabel = "FILE", description = "The config file (YAML or JSON).")
    Path config;

    @Option(names = {"-o", "--output"}, scope = ScopeType.INHERIT, paramLabel = "FORMAT", defaultValue = "table",
            converter = OutputFormatConverter.class, description = "table (default) or json.")
    OutputFormat output = OutputFormat.TABLE;

    @Option(names = "--timeout", scope = ScopeType.INHERIT, paramLabel = "DURATION", defaultValue = "10m", converter = DurationConverter.class,
            description = "How long one provider call may take, like 30s, 5m or 1h (default ${DEFAULT-VALUE}).")
    Duration timeout;

    @Option(names = {"-v", "--verbose"}, scope = ScopeType.INHERIT,
            description = "Log what happens, at debug level, to standard error (-vv: the SSH library's debug lines too).")
    boolean[] verbose = new boolean[0];

    private final Surroundings surroundings;
    private final Function<Invocation, Session> sessions;
    private Session session;

    /**
     * Creates the command.
     *
     * @param surroundings the process's environment and streams
     * @param sessions     opens the session for an invocation (the Dagger component)
     */
    public RootCommand(Surroundings surroundings, Function<Invocation, Session> sessions) {
        this.surroundings = surroundings;
        this.sessions = sessions;
    }

    /** The session, opened on first use with the parsed global options. */
    Session session() {
        if (session == null) {
            session = sessions.apply(new Invocation(config, output, timeout, verbose.length, surroundings.environment(),
                    surroundings.workingDirectory(), surroundings.userHome(), surroundings.out(),
                    surroundings.err(), surroundings.terminal()));
        }
        return session;
    }

    /** Closes the session if one was opened. */
    void closeSession() {
        if (session != null) {
            session.close();
            session = null;
        }
    }

    /**
     * The process's environment and streams, passed in so tests can run the tool in-process.
     *
     * @param environment      environment variables
     * @param workingDirectory the current directory
     * @param userHome         the home directory
     * @param out              standard output
     * @param err              standard error
     * @param terminal         whether a person watches standard error
     */
    public record Surroundings(Map<String, String> environment, Path workingDirectory, Path userHome,
                               PrintStream out, PrintStream err, boolean terminal) {
    }
}

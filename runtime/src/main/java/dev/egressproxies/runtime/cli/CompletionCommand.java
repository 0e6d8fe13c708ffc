package dev.egressproxies.runtime.cli;

import dev.egressproxies.runtime.wiring.Session;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code egressctl completion bash|zsh|fish}: prints a shell completion script. Commands and
 * options come from the command line's own model (picocli's {@link AutoComplete} for bash and zsh,
 * {@link FishCompletion} for fish); entry names are asked of {@code egressctl completion --candidates
 * entries}, which reads the config in use and opens no connection, and instance IDs are read by the
 * shell from the {@link IdCache} file.
 */
@Command(name = "completion", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Prints a shell completion script for bash, zsh or fish.",
            "bash: source <(egressctl completion bash)    zsh: source <(egressctl completion zsh)",
            "fish: egressctl completion fish > ~/.config/fish/completions/egressctl.fish",
            "Instance IDs are those the last list, create and delete saw on this machine."})
final class CompletionCommand implements Callable<Integer> {
    /** The subcommands whose ID arguments complete to instance IDs. */
    static final Set<String> ID_COMMANDS = Set.of("get", "delete", "wait");
    /** The subcommands whose argument is an entry name. */
    static final Set<String> ENTRY_COMMANDS = Set.of("check", "conformance");

    @ParentCommand
    RootCommand root;

    @Spec
    CommandSpec spec;

    @Parameters(arity = "0..1", paramLabel = "SHELL", completionCandidates = Shells.class,
            description = "bash, zsh or fish.")
    String shell;

    @Option(names = "--candidates", hidden = true, paramLabel = "KIND",
            description = "Prints the entry names the script completes (entries), one a line.")
    String candidates;

    @Override
    public Integer call() {
        CommandLine top = spec.parent().commandLine();
        if (candidates != null) {
            return candidates(root.session());
        }
        if (shell == null) {
            throw new IllegalArgumentException("name the shell: egressctl completion bash, zsh or fish");
        }
        String script = switch (shell.toLowerCase(Locale.ROOT)) {
            case "bash", "zsh" -> AutoComplete.bash("egressctl", top) + BashCompletion.dynamicValues(top);
            case "fish" -> FishCompletion.script(top);
            default -> throw new IllegalArgumentException("unknown shell '" + shell + "': use bash, zsh or fish");
        };
        root.session().printer().line(script);
        return ExitCode.OK;
    }

    /** Prints the configured entry names, one a line; prints nothing rather than fail a completion. */
    private int candidates(Session session) {
        List<String> entries;
        try {
            entries = session.configuredEntryNames();
        } catch (RuntimeException unreadableConfig) {
            return ExitCode.OK;
        }
        if (!candidates.equals("entries")) {
            throw new IllegalArgumentException("--candidates takes entries, not '" + candidates + "'");
        }
        entries.forEach(session.printer()::line);
        return ExitCode.OK;
    }

    /** The shells a script is made for. */
    static final class Shells extends ArrayList<String> {
        private static final long serialVersionUID = 1L;

        Shells() {
            super(List.of("bash", "zsh", "fish"));
        }
    }

    /** Whether the option takes a value. */
    static boolean takesValue(OptionSpec option) {
        return option.arity().max() > 0;
    }
}

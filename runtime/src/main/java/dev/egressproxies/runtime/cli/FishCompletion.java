package dev.egressproxies.runtime.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The fish completion script, written from the command line's model as picocli's {@code
 * AutoComplete} does for bash (which has no fish generator): the subcommands, the options of each,
 * their fixed values, files where an option takes one, entry names asked of {@code egressctl completion
 * --candidates entries} and instance IDs read from the {@link IdCache} file.
 */
final class FishCompletion {
    private static final String HEADER = """
            # fish completion for egressctl, printed by 'egressctl completion fish'. Install:
            #   egressctl completion fish > ~/.config/fish/completions/egressctl.fish

            # Entry names: asked of egressctl with the --config typed, which reads the config in use; it
            # opens no connection.
            function __egressctl_entries
                set -l tokens (commandline -opc)
                set -l config
                for i in (seq 2 (count $tokens))
                    switch $tokens[$i]
                        case --config
                            if test $i -lt (count $tokens)
                                set config --config $tokens[(math $i + 1)]
                            end
                        case '--config=*'
                            set config $tokens[$i]
                    end
                end
                command $tokens[1] $config completion --candidates entries 2>/dev/null
            end

            # Instance IDs: those the last list, create and delete on this machine saw, read from a file in
            # the state directory, so completing an ID starts no process.
            function __egressctl_ids
                set -l state $XDG_STATE_HOME
                if not string match -q -- '/*' "$state"
                    set state $HOME/.local/state
                end
                cat $state/egress/@CACHE@ 2>/dev/null
            end

            complete -c egressctl -f
            """;

    private FishCompletion() {
    }

    /** The script for {@code top}, the {@code egressctl} command line. */
    static String script(CommandLine top) {
        StringBuilder script = new StringBuilder(HEADER.replace("@CACHE@", IdCache.FILE_NAME));
        Map<String, CommandLine> subcommands = top.getSubcommands();
        List<String> visible = new ArrayList<>();
        subcommands.forEach((name, sub) -> {
            if (!sub.getCommandSpec().usageMessage().hidden()) {
                visible.add(name);
            }
        });
        String none = "not __fish_seen_subcommand_from " + String.join(" ", visible);
        script.append("\n# Commands\n");
        for (String name : visible) {
            script.append("complete -c egressctl -n ").append(quote(none)).append(" -a ").append(name)
                    .append(" -d ").append(quote(firstLine(subcommands.get(name).getCommandSpec().usageMessage()
                            .description()))).append('\n');
        }
        script.append("\n# Options of every command\n");
        Set<String> global = new HashSet<>();
        for (OptionSpec option : top.getCommandSpec().options()) {
            if (!option.hidden()) {
                global.addAll(List.of(option.names()));
                script.append(option(option, null));
            }
        }
        for (String name : visible) {
            CommandSpec spec = subcommands.get(name).getCommandSpec();
            String when = "__fish_seen_subcommand_from " + name;
            script.append("\n# ").append(name).append('\n');
            for (OptionSpec option : spec.options()) {
                if (!option.hidden() && !global.containsAll(List.of(option.names()))) {
                    script.append(option(option, when));
                }
            }
            String values = CompletionCommand.ID_COMMANDS.contains(name) ? "(__egressctl_ids)"
                    : CompletionCommand.ENTRY_COMMANDS.contains(name) ? "(__egressctl_entries)"
                    : spec.positionalParameters().stream().map(FishCompletion::fixedValues)
                            .filter(fixed -> !fixed.isEmpty()).findFirst().orElse("");
            if (!values.isEmpty()) {
                script.append("complete -c egressctl -n ").append(quote(when)).append(" -a ").append(quote(values))
                        .append('\n');
            }
        }
        return script.toString();
    }

    /** One {@code complete} line for an option, {@code when} a condition or null for every command. */
    private static String option(OptionSpec option, String when) {
        StringBuilder line = new StringBuilder("complete -c egressctl");
        if (when != null) {
            line.append(" -n ").append(quote(when));
        }
        for (String name : option.names()) {
            line.append(name.startsWith("--") ? " -l " + name.substring(2) : " -s " + name.substring(1));
        }
        if (CompletionCommand.takesValue(option)) {
            String values = option.longestName().equals("--provider") ? "(__egressctl_entries)"
                    : fixedValues(option);
            if (!values.isEmpty()) {
                line.append(" -x -a ").append(quote(values));
            } else if (Path.class.equals(option.type())) {
                line.append(" -r -F");
            } else {
                line.append(" -x");
            }
        }
        String description = firstLine(option.description());
        if (!description.isEmpty()) {
            line.append(" -d ").append(quote(description.replace("${DEFAULT-VALUE}",
                    String.valueOf(option.defaultValue()))));
        }
        return line.append('\n').toString();
    }

    /** The fixed values of an argument, space-separated, or {@code ""}. */
    private static String fixedValues(ArgSpec argument) {
        Iterable<String> candidates = argument.completionCandidates();
        if (candidates == null) {
            return "";
        }
        List<String> values = new ArrayList<>();
        candidates.forEach(values::add);
        return String.join(" ", values);
    }

    private static String firstLine(String[] description) {
        return description.length == 0 ? "" : description[0];
    }

    /** A fish single-quoted word: only backslash and the quote itself are special there. */
    static String quote(String text) {
        return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }
}

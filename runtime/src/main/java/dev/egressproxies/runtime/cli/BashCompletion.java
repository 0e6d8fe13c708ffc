package dev.egressproxies.runtime.cli;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import picocli.CommandLine;

/**
 * What egressctl adds to the bash and zsh script that picocli's {@code AutoComplete} generates: entry
 * names after {@code --provider} and as the argument of {@code check} and {@code conformance}, and
 * instance IDs as the arguments of {@code get}, {@code delete} and {@code wait}. Entry names are asked
 * of {@code egressctl completion --candidates entries} (it reads the config in use); IDs are read from
 * the {@link IdCache} file by the shell itself, so completing one starts no process. Every other word
 * goes to picocli's function. zsh runs the same script through its {@code bashcompinit}.
 */
final class BashCompletion {
    /** Appended to picocli's script; replaces its registration with a function that calls it. */
    private static final String DYNAMIC_VALUES = """

            # Entry names come from 'egressctl completion --candidates entries', which reads the config in
            # use (--config as typed); it opens no connection.
            function _egressctl_entries() {
              local i
              local config=()
              for (( i=1; i<${#COMP_WORDS[@]}; i++ )); do
                case ${COMP_WORDS[i]} in
                  --config) config=(--config "${COMP_WORDS[i+1]}") ;;
                  --config=*) config=("${COMP_WORDS[i]}") ;;
                esac
              done
              "${COMP_WORDS[0]}" "${config[@]}" completion --candidates entries 2>/dev/null
            }

            # Instance IDs: those the last list, create and delete on this machine saw, from a file in the
            # state directory, read here so that completing an ID starts no process.
            function _egressctl_ids() {
              local state=${XDG_STATE_HOME:-}
              [[ $state == /* ]] || state=$HOME/.local/state
              cat "$state/egress/@CACHE@" 2>/dev/null
            }

            function _egressctl_complete() {
              local curr_word=${COMP_WORDS[COMP_CWORD]}
              local prev_word=${COMP_WORDS[COMP_CWORD-1]}
              local i
              local command=""
              local kind=""
              # The subcommand: the first word that is neither an option nor the value of one.
              for (( i=1; i<COMP_CWORD; i++ )); do
                case ${COMP_WORDS[i]} in
                  @VALUE_OPTIONS@) (( i++ )) ;;
                  -*) ;;
                  *) command=${COMP_WORDS[i]}; break ;;
                esac
              done
              if [[ $prev_word == --provider ]]; then
                kind=entries
              elif [[ -n $command && $curr_word != -* ]]; then
                case $prev_word in
                  @VALUE_OPTIONS@) ;;
                  *)
                    case $command in
                      get|delete|wait) kind=ids ;;
                      check|conformance) kind=entries ;;
                    esac
                    ;;
                esac
              fi
              if [[ -n $kind ]]; then
                local IFS=$'\\n'
                COMPREPLY=( $(compgen -W "$(_egressctl_$kind)" -- "$curr_word") )
                return 0
              fi
              _complete_egressctl "$@"
            }

            complete -F _egressctl_complete -o default egressctl egressctl.sh egressctl.bash
            """;

    private BashCompletion() {
    }

    /** The lines to append to picocli's script for {@code top}, the {@code egressctl} command line. */
    static String dynamicValues(CommandLine top) {
        Set<String> valueOptions = new TreeSet<>();
        collect(top, valueOptions);
        // --provider's value is an entry name, which the first branch completes.
        return DYNAMIC_VALUES.replace("@VALUE_OPTIONS@", String.join("|", valueOptions))
                .replace("@CACHE@", IdCache.FILE_NAME);
    }

    /** Every name of an option that takes a value, in {@code line} and its subcommands. */
    private static void collect(CommandLine line, Set<String> names) {
        line.getCommandSpec().options().stream().filter(option -> !option.hidden() && CompletionCommand.takesValue(option))
                .forEach(option -> names.addAll(List.of(option.names())));
        line.getSubcommands().values().forEach(sub -> collect(sub, names));
    }
}

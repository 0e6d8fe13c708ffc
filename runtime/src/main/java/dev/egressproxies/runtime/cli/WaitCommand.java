package dev.egressproxies.runtime.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.registry.DurationFormat;
import dev.egressproxies.runtime.output.Printer;
import dev.egressproxies.runtime.output.QualifiedId;
import dev.egressproxies.runtime.wiring.Session;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code egressctl wait ID... [--for running|deleted]}: returns once every proxy is running with an
 * address (or gone), so a script needs no polling loop of its own.
 */
@Command(name = "wait", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Waits until proxies are running with an address, or deleted.",
            "Exits 0 when every one is, 4 when --timeout (default 5m here: the whole wait) passes first, naming what"
                + " each still lacks, and 3 for one that does not exist (unless waiting for deleted)."})
final class WaitCommand implements Callable<Integer> {
    /** How long a wait lasts unless {@code --timeout} is given. */
    static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(5);

    @ParentCommand
    RootCommand root;

    @Spec
    CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "ID", description = "ENTRY/PROVIDER-ID, as create or list printed it.")
    List<String> ids = new ArrayList<>();

    @Option(names = "--for", paramLabel = "STATE", defaultValue = "running", completionCandidates = Goals.class,
            description = "running (default: RUNNING with an address) or deleted (gone).")
    InstanceWaiter.Goal goal = InstanceWaiter.Goal.RUNNING;

    @Override
    public Integer call() {
        Session session = root.session();
        List<QualifiedId> targets = ids.stream().map(QualifiedId::parse).distinct().toList();
        // An entry that is not configured is a usage error, before any waiting.
        targets.forEach(id -> session.provider(id.entry()));
        InstanceWaiter.Outcome outcome = await(session, targets, goal, timeout(spec, root.timeout));
        if (outcome == null || !outcome.complete()) {
            return exitCode(outcome);
        }
        Printer printer = session.printer();
        if (goal == InstanceWaiter.Goal.DELETED) {
            // Gone: completion should not offer them any more.
            IdCache completion = new IdCache(session.stateDirectory());
            outcome.reached().keySet().forEach(completion::remove);
            if (printer.json()) {
                ArrayNode array = printer.array();
                outcome.reached().keySet().forEach(id -> array.addObject().put("id", id.toString()).put("deleted", true));
                printer.print(array);
            } else {
                outcome.reached().keySet().forEach(id -> printer.line("deleted " + id));
            }
            return ExitCode.OK;
        }
        List<Printer.Row> rows = new ArrayList<>();
        outcome.reached().forEach((id, instance) -> rows.add(new Printer.Row(id.entry(), instance)));
        if (printer.json()) {
            ArrayNode array = printer.array();
            rows.forEach(row -> array.add(printer.instance(row.entry(), row.instance())));
            printer.print(array);
        } else {
            printer.print(Printer.instanceTable(rows));
        }
        return ExitCode.OK;
    }

    /**
     * Waits for {@code targets}; when they do not all get there, tells standard error what each still
     * lacks (or that it does not exist).
     *
     * @return how the wait ended, or null when it was interrupted (Ctrl-C)
     */
    static InstanceWaiter.Outcome await(Session session, List<QualifiedId> targets, InstanceWaiter.Goal goal,
                                        Duration timeout) {
        Printer printer = session.printer();
        InstanceWaiter.Outcome outcome;
        try {
            outcome = new InstanceWaiter(session::provider, System::nanoTime,
                    pause -> Thread.sleep(Math.max(1, pause.toMillis()))).await(targets, goal, timeout);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            printer.note("egressctl: interrupted while waiting for " + describe(targets) + " to be " + goal.label());
            return null;
        }
        for (Map.Entry<QualifiedId, ProviderException> unknown : outcome.unknown().entrySet()) {
            printer.note("egressctl: cannot wait for " + unknown.getKey() + " to be running: "
                    + unknown.getValue().getMessage());
        }
        if (outcome.unknown().isEmpty() && !outcome.missing().isEmpty()) {
            StringBuilder note = new StringBuilder("egressctl: timed out after ").append(DurationFormat.format(timeout))
                    .append(" waiting for ").append(outcome.missing().size()).append(" of ").append(targets.size())
                    .append(targets.size() == 1 ? " proxy" : " proxies").append(" to be ").append(goal.label())
                    .append(" (egressctl wait waits again; --timeout gives it longer):");
            outcome.missing().forEach((id, lack) -> note.append("\n  ").append(id).append(": ").append(lack));
            printer.note(note.toString());
        }
        return outcome;
    }

    /** The exit code of a wait that did not get every instance there; null: interrupted. */
    static int exitCode(InstanceWaiter.Outcome outcome) {
        if (outcome == null) {
            return ExitCode.INTERRUPTED;
        }
        if (!outcome.unknown().isEmpty()) {
            return ExitCode.NOT_FOUND;
        }
        return outcome.missing().isEmpty() ? ExitCode.OK : ExitCode.TRANSIENT;
    }

    /**
     * The limit of a wait: {@code --timeout} when given (before or after the subcommand), else
     * {@link #DEFAULT_TIMEOUT}; the global option's own default bounds one provider call, not a wait.
     */
    static Duration timeout(CommandSpec spec, Duration given) {
        for (CommandLine line = spec.commandLine(); line != null; line = line.getParent()) {
            if (line.getParseResult() != null && line.getParseResult().hasMatchedOption("--timeout")) {
                return given;
            }
        }
        return DEFAULT_TIMEOUT;
    }

    private static String describe(List<QualifiedId> targets) {
        return targets.size() == 1 ? targets.get(0).toString() : targets.size() + " proxies";
    }

    /** The values of {@code --for}, as shells complete them. */
    static final class Goals extends ArrayList<String> {
        private static final long serialVersionUID = 1L;

        Goals() {
            super(List.of("running", "deleted"));
        }
    }
}

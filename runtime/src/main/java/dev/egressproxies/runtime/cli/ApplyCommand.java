package dev.egressproxies.runtime.cli;

import dev.egressproxies.runtime.output.QualifiedId;
import dev.egressproxies.runtime.output.Printer;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.Provider;
import dev.egressproxies.runtime.apply.DesiredState;
import dev.egressproxies.runtime.apply.NamesSeenTwice;
import dev.egressproxies.runtime.apply.Drift;
import dev.egressproxies.runtime.apply.Plan;
import dev.egressproxies.runtime.apply.PlanPlacement;
import dev.egressproxies.runtime.apply.PlanExecutor;
import dev.egressproxies.runtime.apply.PlanStep;
import dev.egressproxies.runtime.apply.Planner;
import dev.egressproxies.runtime.apply.ProxySetLoader;
import dev.egressproxies.runtime.apply.StepResult;
import dev.egressproxies.runtime.replicas.Etcd;
import dev.egressproxies.runtime.replicas.EtcdDesiredSet;
import dev.egressproxies.runtime.replicas.EtcdOptions;
import dev.egressproxies.runtime.wiring.Session;
import java.time.Clock;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code egressctl apply -f FILE [--dry-run]}: converges the entries a desired-set file names on
 * that set. Checks the whole file first (nothing changes when any of it is wrong), prints the plan
 * (create, start, replace, delete), then carries it out; a second run plans nothing. With
 * {@code --etcd}, it writes the checked set to etcd instead, for the serve replicas to carry out.
 */
@Command(name = "apply", mixinStandardHelpOptions = true, description = "Converges the entries a desired-set file names on that set.")
final class ApplyCommand implements Callable<Integer> {
    @ParentCommand
    RootCommand root;

    @Option(names = {"-f", "--file"}, paramLabel = "FILE", required = true, description = "The desired set (YAML).")
    Path file;

    @Option(names = "--dry-run", description = "Print the plan and change nothing.")
    boolean dryRun;

    @Mixin
    EtcdConnection etcd = new EtcdConnection();

    @Override
    public Integer call() {
        Session session = root.session();
        Optional<EtcdOptions> cluster = etcd.options();
        if (cluster.isPresent()) {
            return publish(session, new Etcd(cluster.get()));
        }
        DesiredState desired = new ProxySetLoader().load(file, session.entries()::provider);
        Map<String, List<Instance>> managed = new LinkedHashMap<>();
        for (String entry : desired.entries()) {
            Provider provider = session.provider(entry);
            managed.put(entry, NamesSeenTwice.recheck(provider, provider.listManaged(session.deadline()),
                    session.deadline()));
        }
        Plan plan = new PlanPlacement(session::provider, session::deadline)
                .place(new Planner().plan(desired.proxies(), managed));
        Printer printer = session.printer();
        if (dryRun || plan.isEmpty()) {
            report(printer, plan, List.of(), false, dryRun);
            return ExitCode.OK;
        }
        List<StepResult> results = new PlanExecutor(session::provider, session::deadline).execute(plan);
        report(printer, plan, results, true, false);
        return results.stream().filter(result -> result.error() != null).findFirst()
                .map(result -> ExitCode.of(result.error().kind()))
                .orElse(ExitCode.OK);
    }

    /**
     * With {@code --etcd}: checks the file against this config and writes it, user-data inline, as
     * the set the replicas keep in force; they carry it out, so nothing is planned here (this
     * machine may not reach the hypervisors).
     */
    private int publish(Session session, Etcd cluster) {
        EtcdDesiredSet set = new EtcdDesiredSet(cluster, session.entries()::provider, Clock.systemUTC());
        Printer printer = session.printer();
        if (dryRun) {
            new ProxySetLoader().selfContained(file, session.entries()::provider);
            if (printer.json()) {
                printer.print(printer.object().put("written", false).put("dryRun", true).put("key", set.location()));
            } else {
                printer.line(file + " is a valid desired set; dry run: nothing was written to " + set.location());
            }
            return ExitCode.OK;
        }
        EtcdDesiredSet.Written written = set.write(file);
        if (printer.json()) {
            printer.print(printer.object().put("written", true).put("dryRun", false).put("key", written.key())
                    .put("revision", "etcd:" + written.revision()).put("sha256", written.sha256()));
        } else {
            printer.line("wrote " + file + " to etcd:" + written.key() + " at revision etcd:" + written.revision()
                    + "; the serve replicas put it in force (GET /v1/desired shows the revision in force)");
        }
        return ExitCode.OK;
    }

    private static void report(Printer printer, Plan plan, List<StepResult> results, boolean applied,
                               boolean dryRun) {
        if (printer.json()) {
            ObjectNode document = printer.object().put("applied", applied).put("dryRun", dryRun)
                    .put("unchanged", plan.unchanged());
            ArrayNode steps = document.putArray("plan");
            plan.steps().forEach(step -> steps.add(step(printer, step)));
            ArrayNode outcomes = document.putArray("results");
            for (StepResult result : results) {
                ObjectNode outcome = step(printer, result.step()).put("id", qualified(result.step().entry(), result.id()))
                        .put("status", result.skipped() != null ? "skipped" : result.error() == null ? "ok" : "failed");
                if (result.skipped() != null) {
                    outcome.put("reason", result.skipped());
                }
                if (result.error() != null) {
                    outcome.put("error", result.error().getMessage()).put("kind", result.error().kind().name());
                }
                outcomes.add(outcome);
            }
            printer.print(document);
            return;
        }
        if (plan.isEmpty()) {
            printer.line("No changes: " + plan.unchanged() + " proxies already as desired.");
            return;
        }
        printer.line("Plan: " + plan.count(PlanStep.Action.CREATE) + " to create, " + plan.count(PlanStep.Action.START)
                + " to start, " + plan.count(PlanStep.Action.REPLACE) + " to replace, "
                + plan.count(PlanStep.Action.DELETE) + " to delete, " + plan.unchanged() + " unchanged.");
        plan.steps().forEach(step -> printer.line("  " + describe(step)));
        if (!applied) {
            printer.line("Dry run: nothing was changed.");
            return;
        }
        for (StepResult result : results) {
            String what = verb(result.step().action()) + " " + subject(result.step());
            if (result.skipped() != null) {
                printer.line("skipped " + what + ": " + result.skipped());
            } else if (result.error() != null) {
                printer.line("FAILED " + what + ": " + result.error().getMessage());
            } else {
                printer.line("done " + what + " -> " + qualified(result.step().entry(), result.id()));
            }
        }
    }

    private static ObjectNode step(Printer printer, PlanStep step) {
        ObjectNode node = printer.object().put("action", verb(step.action()))
                .put("entry", step.entry()).put("name", step.name());
        if (!step.id().isEmpty()) {
            node.put("existingId", qualified(step.entry(), step.id()));
        }
        if (step.request() != null) {
            node.put("zone", step.request().placement().zone())
                    .put("machineType", step.request().placement().machineType())
                    .put("image", step.request().placement().image());
        }
        if (!step.placed().isEmpty()) {
            node.put("placed", step.placed());
        }
        if (!step.changes().isEmpty()) {
            ArrayNode changes = node.putArray("changes");
            step.changes().forEach(change -> changes.addObject().put("field", change.field())
                    .put("from", change.from()).put("to", change.to()));
        }
        return node;
    }

    /** One plan line: {@code -/+ replace lab/zone-b/egress-1 (zone: zone-b -> zone-a)}. */
    private static String describe(PlanStep step) {
        String line = symbol(step.action()) + " " + verb(step.action()) + " " + subject(step);
        if (!step.changes().isEmpty()) {
            line += " (" + step.changes().stream().map(Drift.Change::toString).collect(Collectors.joining(", ")) + ")";
        }
        if (!step.placed().isEmpty()) {
            line += " in zone " + step.request().placement().zone() + ": " + step.placed();
        }
        return line;
    }

    private static String subject(PlanStep step) {
        return step.id().isEmpty() ? step.entry() + " " + step.name() : qualified(step.entry(), step.id());
    }

    private static String qualified(String entry, String id) {
        return id == null || id.isEmpty() ? "" : new QualifiedId(entry, id).toString();
    }

    private static String verb(PlanStep.Action action) {
        return action.name().toLowerCase(Locale.ROOT);
    }

    private static String symbol(PlanStep.Action action) {
        return switch (action) {
            case CREATE -> "+";
            case START -> "~";
            case REPLACE -> "-/+";
            case DELETE -> "-";
        };
    }
}

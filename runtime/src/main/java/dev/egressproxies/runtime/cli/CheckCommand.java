package dev.egressproxies.runtime.cli;

import dev.egressproxies.runtime.output.Table;
import dev.egressproxies.runtime.output.Printer;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.egressproxies.api.PreflightCheck;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.runtime.wiring.ProviderEntries;
import dev.egressproxies.runtime.wiring.Session;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code egressctl check [ENTRY]}: validates the config (every entry must build) and runs each
 * entry's preflight checks. Exits 1 when one failed; a passed check with a warning (shown as
 * {@code warning}) does not.
 */
@Command(name = "check", mixinStandardHelpOptions = true, description = "Validates the config and runs each entry's preflight checks.")
final class CheckCommand implements Callable<Integer> {
    @ParentCommand
    RootCommand root;

    @Parameters(arity = "0..1", paramLabel = "ENTRY", description = "Check only this entry.")
    String entry;

    @Override
    public Integer call() {
        Session session = root.session();
        ProviderEntries entries = session.entries();
        List<String> names = new ArrayList<>();
        if (entry != null) {
            session.provider(entry);
            names.add(entry);
        } else {
            entries.entries().forEach(summary -> names.add(summary.name()));
        }
        List<Result> results = new ArrayList<>();
        for (String name : names) {
            try {
                List<PreflightCheck> checks = session.provider(name).preflight(session.deadline());
                if (checks.isEmpty()) {
                    results.add(new Result(name, PreflightCheck.passed("config", "entry builds; nothing else to check")));
                }
                checks.forEach(check -> results.add(new Result(name, check)));
            } catch (ProviderException e) {
                results.add(new Result(name, PreflightCheck.failed("preflight", e.getMessage())));
            }
        }
        print(session.printer(), entries.source(), results);
        return results.stream().allMatch(result -> result.check().passed()) ? ExitCode.OK : ExitCode.FAILURE;
    }

    private static void print(Printer printer, String source, List<Result> results) {
        if (printer.json()) {
            ArrayNode array = printer.array();
            for (Result result : results) {
                array.addObject().put("entry", result.entry()).put("check", result.check().name())
                        .put("passed", result.check().passed()).put("warning", result.check().warning())
                        .put("detail", result.check().detail());
            }
            printer.print(printer.object().put("config", source).set("checks", array));
            return;
        }
        Table table = new Table("ENTRY", "CHECK", "RESULT", "DETAIL");
        results.forEach(result -> table.row(result.entry(), result.check().name(),
                result.check().passed() ? result.check().warning() ? "warning" : "ok" : "FAILED",
                result.check().detail()));
        printer.print(table);
    }

    private record Result(String entry, PreflightCheck check) {
    }
}

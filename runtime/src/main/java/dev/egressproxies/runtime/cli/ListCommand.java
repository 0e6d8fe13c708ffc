package dev.egressproxies.runtime.cli;

import dev.egressproxies.runtime.output.Printer;
import dev.egressproxies.runtime.output.QualifiedId;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.runtime.apply.NamesSeenTwice;
import dev.egressproxies.runtime.wiring.Session;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code egressctl list [--provider ENTRY]}: every managed proxy of every entry (or of one). An
 * entry that cannot be read does not hide the others: they are listed, its error is printed to
 * standard error, and the command fails with the error's exit code, so a partial list never
 * passes for a whole one.
 */
@Command(name = "list", mixinStandardHelpOptions = true, description = "Lists the managed proxies of every entry, or of one.")
final class ListCommand implements Callable<Integer> {
    @ParentCommand
    RootCommand root;

    @Option(names = "--provider", paramLabel = "ENTRY", description = "List only this entry.")
    String provider;

    @Override
    public Integer call() {
        Session session = root.session();
        List<String> names = new ArrayList<>();
        if (provider != null) {
            session.provider(provider);
            names.add(provider);
        } else {
            session.entries().entries().forEach(entry -> names.add(entry.name()));
        }
        List<Printer.Row> rows = new ArrayList<>();
        List<ProviderException> failures = new ArrayList<>();
        List<String> listed = new ArrayList<>();
        List<String> cordoned = new ArrayList<>();
        for (String name : names) {
            try {
                Provider entry = session.provider(name);
                for (Instance instance : NamesSeenTwice.recheck(entry, entry.listManaged(session.deadline()),
                        session.deadline())) {
                    rows.add(new Printer.Row(name, instance));
                }
                listed.add(name);
                // Only an entry with several hosts can cordon one and still place proxies.
                if (entry.zones().size() > 1) {
                    entry.cordonedZones(session.deadline()).forEach(zone -> cordoned.add(name + "/" + zone));
                }
            } catch (ProviderException e) {
                if (provider != null) {
                    throw e;
                }
                failures.add(e);
            }
        }
        new IdCache(session.stateDirectory()).replace(listed,
                rows.stream().map(row -> new QualifiedId(row.entry(), row.instance().id())).toList());
        Printer printer = session.printer();
        if (printer.json()) {
            ArrayNode array = printer.array();
            rows.forEach(row -> array.add(printer.instance(row.entry(), row.instance())));
            printer.print(array);
        } else {
            printer.print(Printer.instanceTable(rows));
        }
        cordoned.forEach(host -> printer.note("egressctl: note: host " + host + " is cordoned: no new proxy lands"
                + " there ('egressctl uncordon " + host + "' lifts it)"));
        failures.forEach(failure -> printer.note("egressctl: not listed: " + failure.getMessage()));
        return failures.isEmpty() ? ExitCode.OK : ExitCode.of(failures.get(0).kind());
    }
}

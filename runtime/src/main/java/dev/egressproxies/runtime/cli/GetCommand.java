package dev.egressproxies.runtime.cli;

import dev.egressproxies.runtime.output.QualifiedId;
import dev.egressproxies.runtime.output.Printer;
import dev.egressproxies.api.Instance;
import dev.egressproxies.runtime.wiring.Session;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code egressctl get ID}: shows one proxy. */
@Command(name = "get", mixinStandardHelpOptions = true, description = "Shows one proxy by the ID that create or list printed.")
final class GetCommand implements Callable<Integer> {
    @ParentCommand
    RootCommand root;

    @Parameters(index = "0", paramLabel = "ID", description = "ENTRY/PROVIDER-ID, as create printed it.")
    String id;

    @Override
    public Integer call() {
        Session session = root.session();
        QualifiedId qualified = QualifiedId.parse(id);
        Instance instance = session.provider(qualified.entry()).get(qualified.providerId(), session.deadline());
        Printer printer = session.printer();
        if (printer.json()) {
            printer.print(printer.instance(qualified.entry(), instance));
        } else {
            printer.print(Printer.instanceTable(List.of(new Printer.Row(qualified.entry(), instance))));
        }
        return ExitCode.OK;
    }
}

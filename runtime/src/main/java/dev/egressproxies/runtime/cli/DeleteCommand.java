package dev.egressproxies.runtime.cli;

import dev.egressproxies.runtime.output.QualifiedId;
import dev.egressproxies.runtime.output.Printer;
import dev.egressproxies.runtime.wiring.Session;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code egressctl delete ID}: deletes one proxy; deleting one that is gone succeeds. */
@Command(name = "delete", mixinStandardHelpOptions = true, description = "Deletes a proxy and everything made for it; succeeds if already gone.")
final class DeleteCommand implements Callable<Integer> {
    @ParentCommand
    RootCommand root;

    @Parameters(index = "0", paramLabel = "ID", description = "ENTRY/PROVIDER-ID, as create printed it.")
    String id;

    @Override
    public Integer call() {
        Session session = root.session();
        QualifiedId qualified = QualifiedId.parse(id);
        session.provider(qualified.entry()).delete(qualified.providerId(), session.deadline());
        Printer printer = session.printer();
        if (printer.json()) {
            printer.print(printer.object().put("id", qualified.toString()).put("deleted", true));
        } else {
            printer.line("deleted " + qualified);
        }
        return ExitCode.OK;
    }
}

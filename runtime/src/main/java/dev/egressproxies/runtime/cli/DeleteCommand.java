package dev.egressproxies.runtime.cli;

import dev.egressproxies.runtime.output.QualifiedId;
import dev.egressproxies.runtime.output.Printer;
import dev.egressproxies.runtime.wiring.Session;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.ProviderException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code egressctl delete ID}: deletes one proxy. Deleting one that is gone succeeds and says
 * "nothing to delete"; the delete still runs, as it removes whatever a cut-off create left.
 */
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
        Provider provider = session.provider(qualified.entry());
        boolean existed = exists(provider, qualified.providerId(), session);
        provider.delete(qualified.providerId(), session.deadline());
        new IdCache(session.stateDirectory()).remove(qualified);
        Printer printer = session.printer();
        if (printer.json()) {
            printer.print(printer.object().put("id", qualified.toString()).put("deleted", existed));
        } else if (existed) {
            printer.line("deleted " + qualified);
        } else {
            printer.line("nothing to delete: " + qualified + " does not exist");
        }
        return ExitCode.OK;
    }

    private static boolean exists(Provider provider, String id, Session session) {
        try {
            provider.get(id, session.deadline());
            return true;
        } catch (ProviderException e) {
            if (e.kind() == ErrorKind.NOT_FOUND) {
                return false;
            }
            throw e;
        }
    }
}

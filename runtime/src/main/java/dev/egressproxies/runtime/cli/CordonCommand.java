package dev.egressproxies.runtime.cli;

import dev.egressproxies.api.Provider;
import dev.egressproxies.runtime.output.Printer;
import dev.egressproxies.runtime.wiring.Session;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.ParentCommand;

/**
 * {@code egressctl cordon ENTRY/HOST}: no new proxy lands on the host, for every process that uses
 * the entry; its proxies stay. {@code uncordon} lifts it. Both are idempotent.
 */
@Command(name = "cordon", mixinStandardHelpOptions = true,
        description = "Marks a host so that no new proxy lands there; its proxies stay.")
final class CordonCommand implements Callable<Integer> {
    @ParentCommand
    RootCommand root;

    @Mixin
    HostReference.Argument host;

    @Override
    public Integer call() {
        return mark(root.session(), host.parse(), true);
    }

    /** Sets or lifts the cordon and says so. */
    static int mark(Session session, HostReference reference, boolean cordoned) {
        Provider provider = session.provider(reference.entry());
        reference.requireZoneOf(provider);
        reference.cordon(provider, cordoned, session.deadline());
        Printer printer = session.printer();
        if (printer.json()) {
            printer.print(printer.object().put("entry", reference.entry()).put("host", reference.zone())
                    .put("cordoned", cordoned));
        } else {
            printer.line((cordoned ? "cordoned " : "uncordoned ") + reference);
        }
        return ExitCode.OK;
    }

    /** {@code egressctl uncordon ENTRY/HOST}. */
    @Command(name = "uncordon", mixinStandardHelpOptions = true,
            description = "Lets new proxies land on a cordoned host again.")
    static final class Uncordon implements Callable<Integer> {
        @ParentCommand
        RootCommand root;

        @Mixin
        HostReference.Argument host;

        @Override
        public Integer call() {
            return mark(root.session(), host.parse(), false);
        }
    }
}

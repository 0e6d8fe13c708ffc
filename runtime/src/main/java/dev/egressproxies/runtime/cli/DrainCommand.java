package dev.egressproxies.runtime.cli;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.runtime.apply.DesiredState;
import dev.egressproxies.runtime.apply.ProxySetLoader;
import dev.egressproxies.runtime.apply.ResolvedProxy;
import dev.egressproxies.runtime.config.ConfigException;
import dev.egressproxies.runtime.output.Printer;
import dev.egressproxies.runtime.output.QualifiedId;
import dev.egressproxies.runtime.wiring.Session;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.ParentCommand;

/**
 * {@code egressctl drain ENTRY/HOST -f FILE}: cordons the host, then moves its proxies to other
 * hosts one at a time, as apply's replace does (delete, then create where the backend places it,
 * each under the name's claim), so a name is never two VMs. The desired set says what each proxy
 * is (its user-data is not kept anywhere else); a proxy it lacks, or pins to this host, stops the
 * drain before anything changes. Stops at the first failure.
 */
@Command(name = "drain", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Cordons a host and moves its proxies to other hosts, one at a time.")
final class DrainCommand implements Callable<Integer> {
    @ParentCommand
    RootCommand root;

    @Mixin
    HostReference.Argument host;

    @Option(names = {"-f", "--file"}, paramLabel = "FILE", required = true,
            description = "The desired set that describes the host's proxies (as apply takes it).")
    Path file;

    @Override
    public Integer call() {
        Session session = root.session();
        HostReference reference = host.parse();
        Provider provider = session.provider(reference.entry());
        reference.requireZoneOf(provider);
        DesiredState desired = new ProxySetLoader().load(file, session.entries()::provider);
        Map<String, CreateRequest> wanted = desired.proxies().stream()
                .filter(proxy -> proxy.entry().equals(reference.entry()))
                .collect(Collectors.toMap(proxy -> proxy.request().name(), ResolvedProxy::request));
        List<Instance> onHost = provider.listManaged(reference.zone(), session.deadline()).stream()
                .sorted(Comparator.comparing(Instance::name)).toList();
        requireMovable(reference, onHost, wanted);

        Printer printer = session.printer();
        reference.cordon(provider, true, session.deadline());
        printer.note("egressctl: cordoned " + reference + "; moving " + onHost.size() + " proxies, one at a time");
        List<String[]> moved = new ArrayList<>();
        for (Instance instance : onHost) {
            QualifiedId from = new QualifiedId(reference.entry(), instance.id());
            Optional<ProviderException> failure = move(provider, session, instance, wanted.get(instance.name()),
                    from, moved, printer);
            if (failure.isPresent()) {
                report(printer, reference, moved, failure.get(), instance.name());
                return ExitCode.of(failure.get().kind());
            }
        }
        report(printer, reference, moved, null, null);
        return ExitCode.OK;
    }

    private static Optional<ProviderException> move(Provider provider, Session session, Instance instance,
                                                    CreateRequest request, QualifiedId from, List<String[]> moved,
                                                    Printer printer) {
        try {
            provider.delete(instance.id(), session.deadline());
        } catch (ProviderException failure) {
            return Optional.of(failure);
        }
        try {
            String id = provider.create(request, session.deadline());
            QualifiedId to = new QualifiedId(from.entry(), id);
            new IdCache(session.stateDirectory()).remove(from);
            new IdCache(session.stateDirectory()).add(to);
            moved.add(new String[] {from.toString(), to.toString()});
            printer.note("egressctl: moved " + from + " -> " + to);
            return Optional.empty();
        } catch (ProviderException failure) {
            return Optional.of(new ProviderException(failure.kind(), failure.operation(), failure.entry(),
                    failure.instanceId(), failure.detail() + ". " + from + " was deleted and not created again: run"
                    + " 'egressctl apply -f' with the desired set to create it (the host stays cordoned)", failure));
        }
    }

    /** Refuses, before anything changes, a proxy the set cannot recreate elsewhere. */
    private static void requireMovable(HostReference reference, List<Instance> onHost,
                                       Map<String, CreateRequest> wanted) {
        List<String> problems = new ArrayList<>();
        for (Instance instance : onHost) {
            CreateRequest request = wanted.get(instance.name());
            if (request == null) {
                problems.add(instance.name() + " is not in the desired set, so drain cannot create it again: add it,"
                        + " or delete it (apply does)");
            } else if (request.placement().zone().equals(reference.zone())) {
                problems.add(instance.name() + " is pinned to zone " + reference.zone() + " in the desired set: leave"
                        + " its zone out, or name another");
            }
        }
        if (!problems.isEmpty()) {
            throw new ConfigException("cannot drain " + reference + "; nothing was changed:\n  "
                    + String.join("\n  ", problems));
        }
    }

    private static void report(Printer printer, HostReference reference, List<String[]> moved,
                               ProviderException failure, String failedName) {
        if (printer.json()) {
            var document = printer.object().put("host", reference.toString()).put("cordoned", true)
                    .put("complete", failure == null);
            var list = document.putArray("moved");
            moved.forEach(pair -> list.addObject().put("from", pair[0]).put("to", pair[1]));
            if (failure != null) {
                document.put("failed", failedName).put("error", failure.getMessage())
                        .put("kind", failure.kind().name());
            }
            printer.print(document);
            return;
        }
        moved.forEach(pair -> printer.line("moved " + pair[0] + " -> " + pair[1]));
        if (failure != null) {
            printer.line("FAILED moving " + failedName + ": " + failure.getMessage());
            printer.line("drained " + moved.size() + " proxies of " + reference + " before the failure; it stays"
                    + " cordoned: fix the cause and run drain again");
        } else {
            printer.line("drained " + reference + ": " + moved.size() + " proxies moved; it stays cordoned until"
                    + " 'egressctl uncordon " + reference + "'");
        }
    }
}

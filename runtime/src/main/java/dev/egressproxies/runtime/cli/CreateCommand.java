package dev.egressproxies.runtime.cli;

import dev.egressproxies.runtime.output.QualifiedId;
import dev.egressproxies.runtime.output.Printer;
import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Placement;
import dev.egressproxies.runtime.config.ConfigException;
import dev.egressproxies.runtime.wiring.ProviderEntries;
import dev.egressproxies.runtime.wiring.Session;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.runtime.apply.Drift;
import dev.egressproxies.runtime.config.UserDataFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code egressctl create NAME ...}: makes one proxy exist and run, and prints its ID. Running it
 * again with the same name prints the same ID and creates nothing.
 */
@Command(name = "create", mixinStandardHelpOptions = true, description = "Creates (or starts) a proxy and prints its ID.", sortOptions = false)
final class CreateCommand implements Callable<Integer> {
    @ParentCommand
    RootCommand root;

    @Parameters(index = "0", paramLabel = "NAME", description = "The proxy's name (a DNS label).")
    String name;

    @Option(names = "--provider", paramLabel = "ENTRY",
            description = "The provider entry; may be left out when only one is configured.")
    String provider;

    @Option(names = "--zone", paramLabel = "ZONE", defaultValue = "", description = "The zone (for KVM: the host).")
    String zone;

    @Option(names = "--machine-type", paramLabel = "TYPE", required = true, description = "The machine type.")
    String machineType;

    @Option(names = "--image", paramLabel = "IMAGE", required = true, description = "The image.")
    String image;

    @Option(names = "--cloud-init", paramLabel = "FILE", description = "A file of cloud-init user-data.")
    Path cloudInit;

    @Option(names = "--uid", paramLabel = "UID", description = "The owner's UID (default: a new random one).")
    String uid;

    @Option(names = "--wait", description = "Then wait until it is running with an address, as egressctl wait does"
            + " (--timeout, default 5m, bounds the wait too; -o json then prints the instance as get does).")
    boolean await;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        Session session = root.session();
        String entry = provider != null ? provider : onlyEntry(session.entries());
        CreateRequest request = new CreateRequest(name, uid != null ? uid : UUID.randomUUID().toString(),
                new Placement(zone, machineType, image), userData());
        Provider backend = session.provider(entry);
        String id = backend.create(request, session.deadline());
        QualifiedId qualified = new QualifiedId(entry, id);
        new IdCache(session.stateDirectory()).add(qualified);
        Printer printer = session.printer();
        otherValues(backend, id, request, session).ifPresent(note -> printer.note("egressctl: note: " + qualified
                + " already exists with other values than asked: " + note));
        if (!printer.json()) {
            // Printed before any wait, so the ID is at hand even when the wait times out or is cut short.
            printer.line(qualified.toString());
        }
        if (await) {
            InstanceWaiter.Outcome outcome = WaitCommand.await(session, List.of(qualified), InstanceWaiter.Goal.RUNNING,
                    WaitCommand.timeout(spec, root.timeout));
            if (outcome == null || !outcome.complete()) {
                return WaitCommand.exitCode(outcome);
            }
            if (printer.json()) {
                printer.print(printer.instance(entry, outcome.reached().get(qualified)));
            }
            return ExitCode.OK;
        }
        if (printer.json()) {
            printer.print(printer.object().put("id", qualified.toString()).put("entry", entry).put("providerId", id));
        }
        return ExitCode.OK;
    }

    private String userData() {
        if (cloudInit == null) {
            return "";
        }
        try {
            return UserDataFile.read(cloudInit);
        } catch (ConfigException unreadable) {
            throw new ConfigException("--cloud-init: " + unreadable.getMessage(), unreadable);
        }
    }

    /**
     * What the instance has other than asked for, and what would change it: create returns an
     * existing instance of the name as it is, which would otherwise go unnoticed.
     */
    private Optional<String> otherValues(Provider backend, String id, CreateRequest request, Session session) {
        Instance instance;
        try {
            instance = backend.get(id, session.deadline());
        } catch (ProviderException unreadable) {
            return Optional.empty();   // the create worked; this note is not worth failing it
        }
        List<String> differences = new ArrayList<>();
        Drift.between(request, instance).forEach(change -> differences.add(change.field() + " " + change.from()
                + ", asked " + change.to()));
        boolean replaceable = !differences.isEmpty();
        if (uid != null && !instance.uid().isEmpty() && !instance.uid().equals(uid)) {
            differences.add("uid " + instance.uid() + ", asked " + uid);
        }
        if (differences.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(String.join("; ", differences) + ". create does not change an existing instance;"
                + (replaceable ? " egressctl apply with these values would replace it (delete it, then create it)."
                : " delete it and create it again to change its uid."));
    }

    private static String onlyEntry(ProviderEntries entries) {
        List<ProviderEntries.EntrySummary> all = entries.entries();
        if (all.size() == 1) {
            return all.get(0).name();
        }
        throw new ConfigException("--provider is required: " + entries.source() + " configures "
                + all.size() + " entries (" + String.join(", ", all.stream().map(ProviderEntries.EntrySummary::name)
                .toList()) + ")");
    }
}

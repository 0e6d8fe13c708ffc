package dev.egressproxies.runtime.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.egressproxies.api.BaseImage;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.api.PrunedImage;
import dev.egressproxies.api.PulledImage;
import dev.egressproxies.runtime.config.ConfigException;
import dev.egressproxies.runtime.output.ByteCount;
import dev.egressproxies.runtime.output.Printer;
import dev.egressproxies.runtime.output.Table;
import dev.egressproxies.runtime.wiring.ProviderEntries;
import dev.egressproxies.runtime.wiring.Session;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code egressctl images [--provider ENTRY]}: the base images of every host of every entry (or of
 * one), with the proxies that back on them; {@code images pull} fetches one onto the hosts of an
 * entry, {@code images prune} deletes those nothing backs on. Hosts are read (and pulled onto)
 * together, a few at a time; one that does not answer is reported on standard error and the others
 * are done, and the command then fails with its error's exit code, as {@code list} does.
 */
@Command(name = "images", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Lists the base images on the hosts, with the proxies that use them.",
        subcommands = {ImagesCommand.Pull.class, ImagesCommand.Prune.class})
final class ImagesCommand implements Callable<Integer> {
    /** How many hosts are worked on at once. */
    static final int HOSTS_AT_ONCE = 4;

    @ParentCommand
    RootCommand root;

    @Option(names = "--provider", paramLabel = "ENTRY", description = "Only this entry.")
    String provider;

    @Override
    public Integer call() {
        Session session = root.session();
        List<HostResult<List<BaseImage>>> results = acrossHosts(session, entries(session, provider),
                (backend, zone, deadline) -> backend.images(zone, deadline));
        Printer printer = session.printer();
        List<Row> rows = new ArrayList<>();
        results.forEach(result -> result.value().forEach(image -> rows.add(new Row(result.entry(), image))));
        if (printer.json()) {
            ArrayNode array = printer.array();
            rows.forEach(row -> array.add(json(printer, row)));
            printer.print(array);
        } else {
            printer.print(table(rows));
        }
        return report(printer, results, "not listed");
    }

    /** {@code egressctl images pull KEY|URL --provider ENTRY [--host H]}. */
    @Command(name = "pull", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Fetches an image onto every host of an entry (or one), as create would; moves nothing"
                    + " where it is cached.")
    static final class Pull implements Callable<Integer> {
        @ParentCommand
        ImagesCommand images;

        @Parameters(index = "0", paramLabel = "KEY|URL", description = "The image, as --image of create names it.")
        String image;

        @Option(names = "--provider", paramLabel = "ENTRY",
                description = "The provider entry; may be left out when only one is configured.")
        String provider;

        @Option(names = "--host", paramLabel = "HOST", description = "Only this host (zone) of the entry.")
        String host;

        @Override
        public Integer call() {
            Session session = images.root.session();
            String entry = provider != null ? provider : onlyEntry(session.entries());
            Provider backend = session.provider(entry);
            if (host != null) {
                new HostReference(entry, host).requireZoneOf(backend);
            }
            List<Target> targets = host != null ? List.of(new Target(entry, backend, host)) : zonesOf(entry, backend);
            List<HostResult<PulledImage>> results = run(session, targets,
                    (target, zone, deadline) -> target.pullImage(image, zone, deadline));
            Printer printer = session.printer();
            if (printer.json()) {
                ArrayNode array = printer.array();
                results.stream().filter(HostResult::ok).forEach(result -> array.add(printer.object()
                        .put("entry", result.entry()).put("zone", result.zone())
                        .put("name", result.value().name()).put("fetched", result.value().fetched())));
                printer.print(array);
            } else {
                results.stream().filter(HostResult::ok).forEach(result -> printer.line(where(result) + ": "
                        + (result.value().fetched() ? "fetched " : "already cached, nothing fetched: ")
                        + result.value().name()));
            }
            return report(printer, results, "not pulled");
        }
    }

    /** {@code egressctl images prune [--provider ENTRY] [--older-than 7d] [--dry-run]}. */
    @Command(name = "prune", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Deletes the base images that no proxy uses and no fetch holds; --dry-run only says which.")
    static final class Prune implements Callable<Integer> {
        @ParentCommand
        ImagesCommand images;

        @Option(names = "--provider", paramLabel = "ENTRY", description = "Only this entry.")
        String provider;

        @Option(names = "--older-than", paramLabel = "DURATION", converter = DurationConverter.class,
                description = "Only bases fetched longer ago than this, like 7d or 12h (default: any age).")
        Duration olderThan;

        @Option(names = "--dry-run", description = "Print what would be deleted and the space freed; delete nothing.")
        boolean dryRun;

        @Override
        public Integer call() {
            Session session = images.root.session();
            Duration age = olderThan == null ? Duration.ZERO : olderThan;
            List<HostResult<List<PrunedImage>>> results = acrossHosts(session, entries(session, provider),
                    (backend, zone, deadline) -> backend.pruneImages(zone, age, dryRun, deadline));
            Printer printer = session.printer();
            long freed = 0;
            int count = 0;
            List<ObjectNode> pruned = new ArrayList<>();
            for (HostResult<List<PrunedImage>> result : results) {
                for (PrunedImage image : result.value()) {
                    freed += image.allocatedBytes();
                    count++;
                    if (printer.json()) {
                        ObjectNode node = printer.object().put("entry", result.entry()).put("zone", image.zone())
                                .put("name", image.name()).put("key", image.key())
                                .put("allocatedBytes", image.allocatedBytes());
                        node.put("createdAt", image.createdAt() == null ? null : image.createdAt().toString());
                        pruned.add(node);
                    } else {
                        printer.line((dryRun ? "would delete " : "deleted ") + result.entry() + "/" + image.zone()
                                + " " + image.name() + " (" + ByteCount.format(image.allocatedBytes()) + ")");
                    }
                }
            }
            if (printer.json()) {
                ObjectNode document = printer.object().put("dryRun", dryRun).put("freedBytes", freed);
                pruned.forEach(document.putArray(dryRun ? "wouldDelete" : "deleted")::add);
                ArrayNode skipped = document.putArray("skipped");
                results.stream().filter(result -> result.failure() != null).forEach(result -> skipped.add(
                        printer.object().put("entry", result.entry()).put("zone", result.zone())
                                .put("error", result.failure().getMessage())));
                printer.print(document);
            } else {
                printer.line((dryRun ? "would free " : "freed ") + ByteCount.format(freed) + " in " + count
                        + " base image"
                        + (count == 1 ? "" : "s") + (dryRun ? " (dry run: nothing deleted)" : ""));
            }
            return report(printer, results, dryRun ? "not checked" : "not pruned, skipped");
        }
    }

    /** One entry's backend and one of its zones ({@code ""} for a backend without zones). */
    record Target(String entry, Provider provider, String zone) {
    }

    /** What one host answered: a value, or the failure that skipped it. */
    record HostResult<T>(String entry, String zone, T value, ProviderException failure) {
        boolean ok() {
            return failure == null;
        }
    }

    /** A call of one backend in one zone. */
    @FunctionalInterface
    interface HostWork<T> {
        T apply(Provider provider, String zone, Deadline deadline);
    }

    /** The base image of a row, and its entry. */
    record Row(String entry, BaseImage image) {
    }

    /**
     * The work on every host of {@code entries}; an entry whose backend keeps no base images (the API's
     * refusal, which cannot know the entry's name) is noted and left out.
     */
    private static <T> List<HostResult<T>> acrossHosts(Session session, List<String> entries, HostWork<T> work) {
        List<Target> targets = new ArrayList<>();
        List<HostResult<T>> broken = new ArrayList<>();
        for (String entry : entries) {
            try {
                targets.addAll(zonesOf(entry, session.provider(entry)));
            } catch (ProviderException unbuilt) {
                broken.add(new HostResult<>(entry, "", null, unbuilt));
            }
        }
        List<HostResult<T>> results = new ArrayList<>(broken);
        for (HostResult<T> result : run(session, targets, work)) {
            if (!result.ok() && result.failure().entry().isEmpty() && entries.size() > 1) {
                session.printer().note("egressctl: note: entry " + result.entry() + " skipped: "
                        + result.failure().detail());
                continue;
            }
            results.add(result);
        }
        return results;
    }

    private static List<Target> zonesOf(String entry, Provider backend) {
        List<String> zones = backend.zones().isEmpty() ? List.of("") : backend.zones();
        return zones.stream().map(zone -> new Target(entry, backend, zone)).toList();
    }

    /** Runs {@code work} on the targets, {@link #HOSTS_AT_ONCE} at a time, in the targets' order; Ctrl-C stops all. */
    private static <T> List<HostResult<T>> run(Session session, List<Target> targets, HostWork<T> work) {
        Deadline deadline = session.deadline();
        AtomicInteger count = new AtomicInteger();
        ExecutorService workers = Executors.newFixedThreadPool(Math.max(1, Math.min(HOSTS_AT_ONCE, targets.size())),
                task -> {
                    Thread thread = new Thread(task, "egressctl-images-" + count.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
        try {
            List<Future<T>> pending = new ArrayList<>();
            for (Target target : targets) {
                pending.add(workers.submit(() -> work.apply(target.provider(), target.zone(), deadline)));
            }
            List<HostResult<T>> results = new ArrayList<>();
            for (int index = 0; index < targets.size(); index++) {
                Target target = targets.get(index);
                try {
                    results.add(new HostResult<>(target.entry(), target.zone(), pending.get(index).get(), null));
                } catch (ExecutionException failed) {
                    if (failed.getCause() instanceof ProviderException error) {
                        results.add(new HostResult<>(target.entry(), target.zone(), null, error));
                    } else if (failed.getCause() instanceof RuntimeException unexpected) {
                        throw unexpected;
                    } else {
                        throw new IllegalStateException(failed.getCause());
                    }
                }
            }
            return results;
        } catch (InterruptedException interrupted) {
            throw ProviderException.interrupted(Operation.IMAGES, "", "", interrupted);
        } finally {
            workers.shutdownNow();
        }
    }

    /** Notes each failed host on standard error; the exit code of the first, else OK. */
    private static <T> int report(Printer printer, List<HostResult<T>> results, String verb) {
        int code = ExitCode.OK;
        for (HostResult<T> result : results) {
            if (result.failure() != null) {
                printer.note("egressctl: " + where(result) + " " + verb + ": " + result.failure().getMessage());
                if (code == ExitCode.OK) {
                    code = ExitCode.of(result.failure().kind());
                }
            }
        }
        return code;
    }

    private static String where(HostResult<?> result) {
        return result.zone().isEmpty() ? result.entry() : result.entry() + "/" + result.zone();
    }

    /** The named entry (checked), or every configured one. */
    private static List<String> entries(Session session, String provider) {
        if (provider != null) {
            session.provider(provider);
            return List.of(provider);
        }
        return session.entries().entries().stream().map(ProviderEntries.EntrySummary::name).toList();
    }

    static Table table(List<Row> rows) {
        Table table = new Table("HOST", "BASE", "KEY", "SOURCE", "SHA256", "FORMAT", "VIRTUAL", "ALLOCATED",
                "CREATED", "USERS", "LEASE", "STATUS");
        for (Row row : rows) {
            BaseImage image = row.image();
            String users = image.users().size() + (image.users().isEmpty() ? "" : " (" + String.join(", ",
                    image.users()) + ")");
            String status = (image.unused() ? "unused" : "in use") + (image.legacy() ? ", legacy" : "");
            table.row(row.entry() + (image.zone().isEmpty() ? "" : "/" + image.zone()), image.name(), image.key(),
                    image.source(), image.sha256().length() > 12 ? image.sha256().substring(0, 12) : image.sha256(),
                    image.format(), ByteCount.format(image.virtualBytes()), ByteCount.format(image.allocatedBytes()),
                    image.createdAt(),
                    users, image.lease().name().toLowerCase(Locale.ROOT), status);
        }
        return table;
    }

    private static ObjectNode json(Printer printer, Row row) {
        BaseImage image = row.image();
        ObjectNode node = printer.object().put("entry", row.entry()).put("zone", image.zone())
                .put("name", image.name()).put("key", image.key()).put("source", image.source())
                .put("sha256", image.sha256()).put("format", image.format())
                .put("virtualBytes", image.virtualBytes()).put("allocatedBytes", image.allocatedBytes());
        node.put("createdAt", image.createdAt() == null ? null : image.createdAt().toString());
        node.put("userCount", image.users().size());
        ArrayNode users = node.putArray("users");
        image.users().forEach(users::add);
        node.put("lease", image.lease().name().toLowerCase(Locale.ROOT)).put("leaseDetail", image.leaseDetail())
                .put("unused", image.unused()).put("legacy", image.legacy());
        return node;
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

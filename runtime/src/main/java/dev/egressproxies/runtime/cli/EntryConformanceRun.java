package dev.egressproxies.runtime.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.api.conformance.Capability;
import dev.egressproxies.api.conformance.ConformanceProfile;
import dev.egressproxies.conformance.ConformanceRun.CaseResult;
import dev.egressproxies.conformance.ConformanceRun.Outcome;
import dev.egressproxies.conformance.ConformanceRun;
import dev.egressproxies.conformance.ConformanceTarget;
import dev.egressproxies.registry.DurationFormat;
import dev.egressproxies.registry.ProviderRegistry;
import dev.egressproxies.runtime.output.Printer;
import dev.egressproxies.runtime.output.QualifiedId;
import dev.egressproxies.runtime.wiring.ProviderEntries.EntrySummary;
import dev.egressproxies.runtime.wiring.Session;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * One run of {@code egressctl conformance}: the suite against fresh providers of the entry, each
 * case's result printed as it ends (a tree) or all at the end (JSON), and every instance the run
 * made deleted at its end, also on Ctrl-C. Kept apart from {@link ConformanceCommand}, whose
 * methods picocli reflects on for every command: the suite's classes are only on the module path
 * for this command.
 */
final class EntryConformanceRun {
    /** How long Ctrl-C waits for the case under way to end and clean up, then for the sweep. */
    private static final Duration CLEANUP_GRACE = Duration.ofMinutes(2);
    private static final String RUN_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
    /** What every run's instance names start with, before the run's own token. */
    private static final String RUN_NAME_PREFIX = "conformance-";

    private final Session session;
    private final String entry;
    private final Function<Optional<ConformanceProfile>, ConformanceProfile> profiles;
    private final Duration callTimeout;
    private final Optional<Path> junitXml;

    EntryConformanceRun(Session session, String entry, Function<Optional<ConformanceProfile>, ConformanceProfile> profiles,
                        Duration callTimeout, Optional<Path> junitXml) {
        this.session = session;
        this.entry = entry;
        this.profiles = profiles;
        this.callTimeout = callTimeout;
        this.junitXml = junitXml;
    }

    /** Runs the suite and returns the exit code: OK only when every case passed. */
    int run() {
        // Fails naming the configured entries when there is none of that name.
        session.provider(entry);
        EntrySummary summary = session.entries().entries().stream().filter(each -> each.name().equals(entry))
                .findFirst().orElseThrow();
        String prefix = RUN_NAME_PREFIX + runToken() + "-";
        Printer printer = session.printer();
        // Checks the declarations once before any case runs: a contradiction is a usage error.
        Provider first = target(prefix).provider();
        try {
            noteEarlierRuns(first, printer);
        } finally {
            first.close();
        }
        if (!printer.json()) {
            printer.line("Conformance of entry '" + entry + "' (" + summary.type() + " " + summary.pluginVersion()
                    + "); test instances are named " + prefix + "*");
        }
        ConformanceRun run = new ConformanceRun(() -> target(prefix));
        Thread worker = Thread.currentThread();
        Thread interrupted = new Thread(() -> {
            run.cancel();
            try {
                worker.join(CLEANUP_GRACE.toMillis());
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
        }, "egressctl-conformance-cleanup");
        Runtime.getRuntime().addShutdownHook(interrupted);
        List<CaseResult> results;
        List<String> swept;
        TreePrinter tree = new TreePrinter(printer);
        try {
            results = run.execute(printer.json() ? result -> { } : tree::print, junitXml);
        } finally {
            // Whatever a case could not delete (it was cut short) goes now; Ctrl-C cleared nothing yet.
            Thread.interrupted();
            swept = sweep(prefix);
            try {
                Runtime.getRuntime().removeShutdownHook(interrupted);
            } catch (IllegalStateException shuttingDown) {
                // Ctrl-C: the hook is running and waits for this thread.
            }
        }
        long passed = count(results, Outcome.PASSED);
        long failed = count(results, Outcome.FAILED);
        long notRun = count(results, Outcome.NOT_RUN);
        if (printer.json()) {
            printer.print(document(printer, summary, prefix, results, swept, passed, failed, notRun));
        } else {
            swept.forEach(id -> printer.note("egressctl: deleted " + id + ", which the run had left"));
            printer.line(results.size() + " cases: " + passed + " passed, " + failed + " failed, " + notRun
                    + " not run (" + text(results.stream().map(CaseResult::duration)
                    .reduce(Duration.ZERO, Duration::plus).truncatedTo(ChronoUnit.SECONDS)) + ")");
        }
        return failed == 0 && notRun == 0 && !results.isEmpty() ? ExitCode.OK : ExitCode.FAILURE;
    }

    /**
     * Names the instances that earlier runs left (a run killed with SIGKILL cannot clean up), so
     * the operator can delete them; this run's sweep leaves them alone, as they may belong to a
     * run still going elsewhere.
     */
    private void noteEarlierRuns(Provider provider, Printer printer) {
        try {
            for (Instance instance : provider.listManaged(session.deadline())) {
                if (instance.name().startsWith(RUN_NAME_PREFIX)) {
                    String id = new QualifiedId(entry, instance.id()).toString();
                    printer.note("egressctl: " + id + " is left by another conformance run (still going, or killed);"
                            + " when it is not running, delete it with 'egressctl delete " + id + "'");
                }
            }
        } catch (ProviderException unreadable) {
            // The cases report an entry that cannot be listed, with their own words.
        }
    }

    /** A fresh provider of the entry, described as the plugin and the options say. */
    private ConformanceTarget target(String prefix) {
        ProviderRegistry registry = session.buildAlone(entry);
        Provider provider = registry.provider(entry).orElseThrow();
        try {
            return ConformanceTarget.builder(provider, entry)
                    .profile(profiles.apply(registry.conformanceProfile(entry)))
                    .namePrefix(prefix)
                    .callTimeout(callTimeout)
                    .build();
        } catch (IllegalArgumentException | IllegalStateException invalid) {
            provider.close();
            throw new IllegalArgumentException("cannot check entry '" + entry + "': " + invalid.getMessage(), invalid);
        }
    }

    /**
     * Deletes the managed instances whose names carry the run's prefix, in the entry and, where the
     * plugin builds one, in its second entry; returns their IDs.
     */
    private List<String> sweep(String prefix) {
        List<String> deleted = new ArrayList<>();
        try (ProviderRegistry registry = session.buildAlone(entry)) {
            Provider provider = registry.provider(entry).orElseThrow();
            deleted.addAll(sweep(provider, prefix, session));
            Optional<ConformanceProfile> profile = registry.conformanceProfile(entry);
            if (profile.isPresent() && profile.get().capabilities().contains(Capability.BUILDS_ANOTHER_ENTRY)) {
                Provider other = profile.get().harness().anotherEntry().provider();
                try {
                    deleted.addAll(sweep(other, prefix, session));
                } finally {
                    other.close();
                }
            }
        } catch (ProviderException | IllegalArgumentException | IllegalStateException failure) {
            session.printer().note("egressctl: could not look for instances the run left (" + failure.getMessage()
                    + "); list them with 'egressctl list --provider " + entry + "' and delete those named " + prefix + "*");
        }
        return deleted;
    }

    private static List<String> sweep(Provider provider, String prefix, Session session) {
        List<String> deleted = new ArrayList<>();
        for (Instance instance : provider.listManaged(session.deadline())) {
            if (instance.name().startsWith(prefix)) {
                provider.delete(instance.id(), session.deadline());
                deleted.add(instance.id());
            }
        }
        return deleted;
    }

    private ObjectNode document(Printer printer, EntrySummary summary, String prefix, List<CaseResult> results,
                                List<String> swept, long passed, long failed, long notRun) {
        ArrayNode cases = printer.array();
        for (CaseResult result : results) {
            cases.addObject().put("group", result.group()).put("case", result.name())
                    .put("outcome", result.outcome().name().toLowerCase(Locale.ROOT).replace('_', '-'))
                    .put("reason", result.reason()).put("seconds", result.duration().toMillis() / 1000.0);
        }
        ArrayNode deleted = printer.array();
        swept.forEach(deleted::add);
        ObjectNode document = printer.object().put("entry", entry).put("type", summary.type())
                .put("pluginVersion", summary.pluginVersion()).put("namePrefix", prefix)
                .put("passed", passed).put("failed", failed).put("notRun", notRun);
        document.set("cases", cases);
        document.set("leftoversDeleted", deleted);
        return document;
    }

    /** A duration to the millisecond, as options write it: {@code 1s250ms}. */
    private static String text(Duration duration) {
        return DurationFormat.format(duration.truncatedTo(ChronoUnit.MILLIS));
    }

    private static long count(List<CaseResult> results, Outcome outcome) {
        return results.stream().filter(result -> result.outcome() == outcome).count();
    }

    /** Six random characters: enough that two runs against one backend never share a prefix. */
    private static String runToken() {
        SecureRandom random = new SecureRandom();
        StringBuilder token = new StringBuilder();
        for (int index = 0; index < 6; index++) {
            token.append(RUN_ALPHABET.charAt(random.nextInt(RUN_ALPHABET.length())));
        }
        return token.toString();
    }

    /** Prints results as a tree, a group's name before its first case. */
    private static final class TreePrinter {
        private final Printer printer;
        private String group;

        TreePrinter(Printer printer) {
            this.printer = printer;
        }

        void print(CaseResult result) {
            if (!result.group().equals(group)) {
                group = result.group();
                printer.line(group);
            }
            String mark = switch (result.outcome()) {
                case PASSED -> "pass   ";
                case FAILED -> "FAIL   ";
                case NOT_RUN -> "not run";
            };
            printer.line("  " + mark + " " + result.name() + " (" + text(result.duration()) + ")"
                    + (result.reason().isEmpty() ? "" : ": " + result.reason()));
        }
    }
}

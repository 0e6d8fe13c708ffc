package dev.egressproxies.conformance;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.reporting.legacy.xml.LegacyXmlReportGeneratingListener;

/**
 * One run of the suite outside a build tool, as {@code egressctl conformance} starts it: every case
 * of {@link ProviderConformanceTest} against the targets a supplier builds (one per case, as
 * {@link ProviderConformanceTest#createTarget()} is asked for one), through the JUnit Platform
 * launcher on the calling thread, each case reported as it ends.
 *
 * <p>One run at a time per JVM. {@link #cancel()}, from any thread, lets the case under way finish
 * (and delete what it made) and marks the rest not run.
 *
 * @since 1.0.0
 */
public final class ConformanceRun {
    /** The configuration parameter that turns off the suite's own failure lines on standard error. */
    static final String REPORT_FAILURES = "dev.egressproxies.conformance.reportFailures";
    private static final AtomicReference<ConformanceRun> CURRENT = new AtomicReference<>();

    private final Supplier<ConformanceTarget> targets;
    private final AtomicBoolean cancelled = new AtomicBoolean();

    /**
     * A run whose cases each get a target from {@code targets}.
     *
     * @since 1.0.0
     */
    public ConformanceRun(Supplier<ConformanceTarget> targets) {
        this.targets = Objects.requireNonNull(targets, "targets");
    }

    /**
     * How a case ended.
     *
     * @since 1.0.0
     */
    public enum Outcome {
        /** Every assertion held. */
        PASSED,
        /** An assertion failed, or the case or its cleanup threw. */
        FAILED,
        /** The run was cancelled before the case started, or JUnit aborted it. */
        NOT_RUN
    }

    /**
     * One case's result.
     *
     * @param group    the group it belongs to, such as {@code Create}
     * @param name     the case, such as {@code createdInstanceIsListed}
     * @param outcome  how it ended
     * @param reason   why it failed or did not run, on one line; empty when it passed
     * @param duration how long it took, cleanup included
     * @since 1.0.0
     */
    public record CaseResult(String group, String name, Outcome outcome, String reason, Duration duration) {
    }

    /**
     * Runs every case, handing each result to {@code eachCase} as it ends, and returns them all in
     * the order they ran.
     *
     * @param junitXml where to write a JUnit XML report of the run, if anywhere
     * @throws IllegalStateException when another run is under way in this JVM
     * @throws UncheckedIOException  when the report cannot be written
     * @since 1.0.0
     */
    public List<CaseResult> execute(Consumer<CaseResult> eachCase, Optional<Path> junitXml) {
        if (!CURRENT.compareAndSet(null, this)) {
            throw new IllegalStateException("another conformance run is under way in this process");
        }
        try {
            Results results = new Results(eachCase);
            Launcher launcher = LauncherFactory.create();
            Path reports = junitXml.isPresent() ? Files.createTempDirectory("conformance-report") : null;
            List<TestExecutionListener> listeners = new ArrayList<>(List.of(results));
            if (reports != null) {
                listeners.add(new LegacyXmlReportGeneratingListener(reports, new PrintWriter(Writer.nullWriter())));
            }
            launcher.execute(LauncherDiscoveryRequestBuilder.request()
                    .selectors(selectClass(ConfiguredEntryConformanceTest.class))
                    .configurationParameter(REPORT_FAILURES, "false")
                    .build(), listeners.toArray(TestExecutionListener[]::new));
            if (reports != null) {
                moveReport(reports, junitXml.get());
            }
            return List.copyOf(results.all);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write the JUnit XML report: " + e.getMessage(), e);
        } finally {
            CURRENT.set(null);
        }
    }

    /**
     * Lets the case under way finish and clean up; the cases after it do not run.
     *
     * @since 1.0.0
     */
    public void cancel() {
        cancelled.set(true);
    }

    /** The target for the next case of the run under way. */
    static ConformanceTarget nextTarget() {
        ConformanceRun run = CURRENT.get();
        if (run == null) {
            throw new IllegalStateException("no conformance run is under way; start one with ConformanceRun.execute");
        }
        return run.targets.get();
    }

    private static void moveReport(Path reports, Path target) throws IOException {
        try (Stream<Path> written = Files.list(reports)) {
            Path report = written.filter(file -> file.getFileName().toString().endsWith(".xml")).findFirst()
                    .orElseThrow(() -> new IOException("JUnit wrote no report"));
            Path parent = target.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.move(report, target, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            try (Stream<Path> left = Files.list(reports)) {
                for (Path file : left.toList()) {
                    Files.deleteIfExists(file);
                }
            }
            Files.deleteIfExists(reports);
        }
    }

    /** Disables every group and case once the run under way was cancelled. */
    static final class Cancellation implements ExecutionCondition {
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            ConformanceRun run = CURRENT.get();
            return run != null && run.cancelled.get()
                    ? ConditionEvaluationResult.disabled("the run was cancelled")
                    : ConditionEvaluationResult.enabled("the run goes on");
        }
    }

    /** Turns JUnit's events into {@link CaseResult}s, reporting each case as it ends. */
    private static final class Results implements TestExecutionListener {
        private final Consumer<CaseResult> eachCase;
        private final List<CaseResult> all = new ArrayList<>();
        private final Map<String, Long> started = new ConcurrentHashMap<>();
        private TestPlan plan;

        Results(Consumer<CaseResult> eachCase) {
            this.eachCase = eachCase;
        }

        @Override
        public void testPlanExecutionStarted(TestPlan testPlan) {
            plan = testPlan;
        }

        @Override
        public void executionStarted(TestIdentifier identifier) {
            started.put(identifier.getUniqueId(), System.nanoTime());
        }

        @Override
        public void executionSkipped(TestIdentifier identifier, String reason) {
            // A skipped group skips its cases without an event of their own.
            if (identifier.isTest()) {
                report(identifier, Outcome.NOT_RUN, reason, Duration.ZERO);
            } else {
                plan.getChildren(identifier).forEach(child -> executionSkipped(child, reason));
            }
        }

        @Override
        public void executionFinished(TestIdentifier identifier, TestExecutionResult result) {
            Long start = started.remove(identifier.getUniqueId());
            Duration took = Duration.ofNanos(start == null ? 0 : System.nanoTime() - start);
            String reason = result.getThrowable().map(ConsoleReport::reason).orElse("");
            if (identifier.isTest()) {
                Outcome outcome = switch (result.getStatus()) {
                    case SUCCESSFUL -> Outcome.PASSED;
                    case FAILED -> Outcome.FAILED;
                    case ABORTED -> Outcome.NOT_RUN;
                };
                report(identifier, outcome, reason, took);
            } else if (result.getStatus() == TestExecutionResult.Status.FAILED) {
                // A group or the suite failed as a whole (its set-up threw): say so as a case of its own.
                report(identifier, Outcome.FAILED, reason, took);
            }
        }

        private void report(TestIdentifier identifier, Outcome outcome, String reason, Duration took) {
            String group = plan.getParent(identifier).map(TestIdentifier::getDisplayName).orElse("");
            String name = identifier.getSource().filter(MethodSource.class::isInstance)
                    .map(source -> ((MethodSource) source).getMethodName())
                    .orElse(identifier.getDisplayName());
            CaseResult result = new CaseResult(group, name, outcome, reason, took);
            all.add(result);
            eachCase.accept(result);
        }
    }
}

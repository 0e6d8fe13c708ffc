package dev.egressproxies.conformance;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Prints on standard error what build tools' consoles leave out: each failed case as
 * {@code Backend > Group > case: reason} (they name a nested case by its method alone), and once
 * the backend's run ends, its cases counted (they count each nested group on its own, and the
 * backend's class, which holds none itself, as {@code Tests run: 0}).
 */
final class ConsoleReport implements TestWatcher, AfterAllCallback {
    /** Keeps a report to a line or two; the build tool's report has the whole message. */
    private static final int MAXIMUM_REASON = 300;
    private static final ExtensionContext.Namespace TALLY = ExtensionContext.Namespace.create(ConsoleReport.class);

    /** The cases of one backend's run by outcome. */
    private static final class Tally {
        final AtomicInteger passed = new AtomicInteger();
        final AtomicInteger failed = new AtomicInteger();
        final AtomicInteger aborted = new AtomicInteger();
    }

    @Override
    public void testSuccessful(ExtensionContext context) {
        tally(context).passed.incrementAndGet();
    }

    @Override
    public void testAborted(ExtensionContext context, Throwable cause) {
        tally(context).aborted.incrementAndGet();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (enabled(context) && backend(context) == context) {
            Tally tally = tally(context);
            System.err.println(summary(context.getRequiredTestClass().getSimpleName(), tally.passed.get(),
                    tally.failed.get(), tally.aborted.get()));
        }
    }

    /** The count of a backend's run, as {@link #afterAll} prints it. */
    static String summary(String backend, int passed, int failed, int aborted) {
        return "[conformance] " + backend + ": " + (passed + failed + aborted) + " cases, " + passed + " passed, "
                + failed + " failed" + (aborted == 0 ? "" : ", " + aborted + " aborted");
    }

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        tally(context).failed.incrementAndGet();
        if (!enabled(context)) {
            return;
        }
        Deque<String> path = new ArrayDeque<>();
        path.push(context.getRequiredTestMethod().getName());
        for (Optional<ExtensionContext> outer = context.getParent(); outer.isPresent();
             outer = outer.get().getParent()) {
            // The backend's subclass, then the nested group: the classes whose context runs no method.
            outer.filter(level -> level.getTestMethod().isEmpty())
                    .flatMap(ExtensionContext::getTestClass)
                    .ifPresent(level -> path.push(level.getSimpleName()));
        }
        System.err.println(line(List.copyOf(path), cause));
    }

    private static boolean enabled(ExtensionContext context) {
        return context.getConfigurationParameter(ConformanceRun.REPORT_FAILURES, Boolean::parseBoolean).orElse(true);
    }

    /** The outermost class context: the backend's subclass of the suite. */
    private static ExtensionContext backend(ExtensionContext context) {
        ExtensionContext outermost = context;
        for (Optional<ExtensionContext> outer = context.getParent(); outer.isPresent() && outer.get().getTestClass()
                .isPresent(); outer = outer.get().getParent()) {
            outermost = outer.get();
        }
        return outermost;
    }

    private static Tally tally(ExtensionContext context) {
        return backend(context).getStore(TALLY).getOrComputeIfAbsent(Tally.class, type -> new Tally(), Tally.class);
    }

    /** The report of the case at {@code path} (backend, group, case) failing with {@code cause}. */
    static String line(List<String> path, Throwable cause) {
        String reason = reason(cause);
        if (reason.length() > MAXIMUM_REASON) {
            reason = reason.substring(0, MAXIMUM_REASON) + "...";
        }
        return "[conformance] FAILED " + String.join(" > ", path) + ": " + reason;
    }

    /** The message of {@code cause} on one line, else its class name. */
    static String reason(Throwable cause) {
        return Optional.ofNullable(cause.getMessage())
                .map(message -> String.join(" ", message.strip().split("\\s*\\R\\s*")))
                .orElse(cause.getClass().getName());
    }
}

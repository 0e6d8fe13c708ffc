package dev.egressproxies.conformance;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Prints each failed case as {@code Backend > Group > case: reason} on standard error, because
 * build tools report a nested case by its method alone and leave out the group it belongs to.
 */
final class FailureReport implements TestWatcher {
    /** Keeps a report to a line or two; the build tool's report has the whole message. */
    private static final int MAXIMUM_REASON = 300;

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        if (!context.getConfigurationParameter(ConformanceRun.REPORT_FAILURES, Boolean::parseBoolean).orElse(true)) {
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

package dev.egressproxies.runtime.serve;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * The service's own log on standard error: one line per reconcile action with its outcome, and
 * one per event an operator acts on (a desired set loaded or rejected, a host down or back, deletes
 * held). In {@code json} format each line is one JSON object for log shippers.
 */
public final class ActionLog {
    private final PrintStream out;
    private final LogFormat format;
    private final Clock clock;
    private final ObjectMapper json = new ObjectMapper();

    ActionLog(PrintStream out, LogFormat format, Clock clock) {
        this.out = out;
        this.format = format;
        this.clock = clock;
    }

    /** Logs one action on a proxy: what, on which, how it ended, how long it took and why it failed. */
    void action(String entry, String name, String id, String action, Outcome outcome, Duration took, String error) {
        if (format == LogFormat.JSON) {
            ObjectNode line = line(outcome == Outcome.FAILED ? "warn" : "info", "action")
                    .put("entry", entry).put("name", name).put("id", id).put("action", action)
                    .put("outcome", outcome.label()).put("seconds", took.toMillis() / 1000.0);
            if (error != null) {
                line.put("error", error);
            }
            print(line);
            return;
        }
        String subject = id.isEmpty() ? entry + " " + name : entry + "/" + id;
        print(clock.instant() + " " + action + " " + subject + ": " + outcome.label()
                + String.format(Locale.ROOT, " (%.1f s)", took.toMillis() / 1000.0) + (error == null ? "" : ": " + error));
    }

    /** Logs an event at {@code level} ({@code info} or {@code warn}) with its fields. */
    public void event(String level, String message, Map<String, String> fields) {
        if (format == LogFormat.JSON) {
            ObjectNode line = line(level, "event").put("message", message);
            fields.forEach(line::put);
            print(line);
            return;
        }
        StringBuilder text = new StringBuilder(clock.instant().toString()).append(' ');
        if (!"info".equals(level)) {
            text.append(level.toUpperCase(Locale.ROOT)).append(' ');
        }
        text.append(message);
        fields.forEach((key, value) -> text.append(' ').append(key).append('=').append(value));
        print(text.toString());
    }

    private ObjectNode line(String level, String kind) {
        return json.createObjectNode().put("time", clock.instant().toString()).put("level", level).put("kind", kind);
    }

    private void print(Object line) {
        synchronized (out) {
            out.println(line);
        }
    }
}

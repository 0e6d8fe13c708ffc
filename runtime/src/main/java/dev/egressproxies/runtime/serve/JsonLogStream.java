package dev.egressproxies.runtime.serve;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Standard error for {@code serve --log-format json}: each line that is not JSON already (the
 * logging library's {@code LEVEL Logger - message} lines, a stack trace's lines) becomes one JSON
 * object, so a log shipper reads every line the same way. The logging library has no formatter of
 * its own to plug in; it writes to whatever {@code System.err} is when it logs.
 */
final class JsonLogStream extends OutputStream {
    private static final Pattern LOGGER_LINE = Pattern.compile(
            "^(?:\\d+ )?(TRACE|DEBUG|INFO|WARN|ERROR) ([\\w.$]+) - (.*)$");

    private final PrintStream target;
    private final Clock clock;
    private final ObjectMapper json = new ObjectMapper();
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

    JsonLogStream(PrintStream target, Clock clock) {
        this.target = target;
        this.clock = clock;
    }

    /** A print stream over this one, to pass to {@link System#setErr}. */
    PrintStream printStream() {
        return new PrintStream(this, true, StandardCharsets.UTF_8);
    }

    @Override
    public synchronized void write(int b) {
        if (b == '\n') {
            emit();
        } else {
            line.write(b);
        }
    }

    @Override
    public synchronized void write(byte[] bytes, int offset, int length) {
        for (int index = offset; index < offset + length; index++) {
            write(bytes[index]);
        }
    }

    @Override
    public synchronized void flush() {
        target.flush();
    }

    private void emit() {
        String text = line.toString(StandardCharsets.UTF_8).stripTrailing();
        line.reset();
        if (text.isEmpty()) {
            return;
        }
        if (text.startsWith("{")) {
            target.println(text);
            return;
        }
        ObjectNode node = json.createObjectNode().put("time", clock.instant().toString());
        Matcher matcher = LOGGER_LINE.matcher(text);
        if (matcher.matches()) {
            node.put("level", matcher.group(1).toLowerCase(Locale.ROOT)).put("kind", "log")
                    .put("logger", matcher.group(2)).put("message", matcher.group(3));
        } else {
            node.put("level", "info").put("kind", "log").put("message", text);
        }
        target.println(node);
    }
}

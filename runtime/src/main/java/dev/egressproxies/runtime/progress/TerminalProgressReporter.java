package dev.egressproxies.runtime.progress;

import dev.egressproxies.api.spi.ProgressReporter;
import dev.egressproxies.runtime.output.ByteCount;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * A {@link ProgressReporter} that redraws status lines on a terminal (bytes done, rate, time left),
 * a few times a second at most so a fast download does not flood the terminal. Operations that run
 * at once (an image pulled onto several hosts) get a line each, redrawn together as one block; the
 * block ends, and the cursor moves past it, when the last of them closes.
 */
public final class TerminalProgressReporter implements ProgressReporter {
    private static final long REDRAW_INTERVAL_NANOS = Duration.ofMillis(200).toNanos();

    private final PrintStream terminal;
    private final LongSupplier nanoTime;
    /** The operations of the block on screen, in the order they began; guarded by this. */
    private final List<TerminalProgress> block = new ArrayList<>();
    /** How many lines of the block are drawn; guarded by this. */
    private int drawnLines;
    /** When the block was last drawn; guarded by this. */
    private long lastDrawnAt;

    /**
     * Creates a reporter.
     *
     * @param terminal where the status lines go (standard error, so standard output stays clean)
     * @param nanoTime the monotonic clock, swappable in tests
     */
    public TerminalProgressReporter(PrintStream terminal, LongSupplier nanoTime) {
        this.terminal = terminal;
        this.nanoTime = nanoTime;
        this.lastDrawnAt = nanoTime.getAsLong() - REDRAW_INTERVAL_NANOS;
    }

    @Override
    public synchronized Progress begin(String description, long totalBytes) {
        TerminalProgress progress = new TerminalProgress(description, totalBytes);
        block.add(progress);
        return progress;
    }

    private synchronized void advanced(TerminalProgress progress, long bytes) {
        progress.doneBytes += bytes;
        long now = nanoTime.getAsLong();
        if (now - lastDrawnAt >= REDRAW_INTERVAL_NANOS) {
            lastDrawnAt = now;
            draw(now);
        }
    }

    private synchronized void closed(TerminalProgress progress) {
        if (progress.closed) {
            return;
        }
        progress.closed = true;
        progress.closedAt = nanoTime.getAsLong();
        draw(progress.closedAt);
        if (block.stream().allMatch(shown -> shown.closed)) {
            terminal.println();
            terminal.flush();
            block.clear();
            drawnLines = 0;
        }
    }

    /** Redraws the block in place: up to its first line, then each line cleared and written. */
    private void draw(long now) {
        StringBuilder text = new StringBuilder("\r");
        if (drawnLines > 1) {
            text.append("\033[").append(drawnLines - 1).append('A');
        }
        for (int index = 0; index < block.size(); index++) {
            TerminalProgress shown = block.get(index);
            if (index > 0) {
                text.append('\n');
            }
            text.append("\033[K").append(ProgressLine.format(shown.description, shown.doneBytes, shown.totalBytes,
                    (shown.closed ? shown.closedAt : now) - shown.startedAt));
        }
        drawnLines = block.size();
        terminal.print(text);
        terminal.flush();
    }

    /** One operation's line. */
    private final class TerminalProgress implements Progress {
        private final String description;
        private final long totalBytes;
        private final long startedAt;
        private long doneBytes;
        private boolean closed;
        private long closedAt;

        TerminalProgress(String description, long totalBytes) {
            this.description = description;
            this.totalBytes = totalBytes;
            this.startedAt = nanoTime.getAsLong();
        }

        @Override
        public void advance(long bytes) {
            advanced(this, bytes);
        }

        @Override
        public void close() {
            closed(this);
        }
    }

    /** Formats the status line; separate so the arithmetic is testable without a terminal. */
    static final class ProgressLine {
        private ProgressLine() {
        }

        static String format(String description, long doneBytes, long totalBytes, long elapsedNanos) {
            double seconds = Math.max(elapsedNanos, 1) / 1e9;
            double rate = doneBytes / seconds;
            StringBuilder line = new StringBuilder(description).append(": ").append(ByteCount.format(doneBytes));
            if (totalBytes > 0) {
                line.append(" / ").append(ByteCount.format(totalBytes))
                        .append(String.format(Locale.ROOT, " (%d%%)", Math.min(100, doneBytes * 100 / totalBytes)));
            }
            line.append(", ").append(ByteCount.format((long) rate)).append("/s");
            if (totalBytes > 0 && rate > 0 && doneBytes < totalBytes) {
                long secondsLeft = (long) Math.ceil((totalBytes - doneBytes) / rate);
                line.append(", ").append(duration(secondsLeft)).append(" left");
            }
            return line.toString();
        }

        static String duration(long seconds) {
            if (seconds < 60) {
                return seconds + "s";
            }
            if (seconds < 3600) {
                return (seconds / 60) + "m" + (seconds % 60) + "s";
            }
            return (seconds / 3600) + "h" + (seconds % 3600 / 60) + "m";
        }
    }
}

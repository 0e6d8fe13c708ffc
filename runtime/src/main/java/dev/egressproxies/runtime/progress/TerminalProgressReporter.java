package dev.egressproxies.runtime.progress;

import dev.egressproxies.api.spi.ProgressReporter;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * A {@link ProgressReporter} that redraws one status line on a terminal (bytes done, rate, time
 * left), a few times a second at most so a fast download does not flood the terminal.
 */
public final class TerminalProgressReporter implements ProgressReporter {
    private static final long REDRAW_INTERVAL_NANOS = Duration.ofMillis(200).toNanos();

    private final PrintStream terminal;
    private final LongSupplier nanoTime;

    /**
     * Creates a reporter.
     *
     * @param terminal where the status line goes (standard error, so standard output stays clean)
     * @param nanoTime the monotonic clock, swappable in tests
     */
    public TerminalProgressReporter(PrintStream terminal, LongSupplier nanoTime) {
        this.terminal = terminal;
        this.nanoTime = nanoTime;
    }

    @Override
    public Progress begin(String description, long totalBytes) {
        return new TerminalProgress(description, totalBytes);
    }

    /** The status line of one operation. */
    private final class TerminalProgress implements Progress {
        private final String description;
        private final long totalBytes;
        private final long startedAt;
        private long doneBytes;
        private long lastDrawnAt;
        private boolean closed;

        TerminalProgress(String description, long totalBytes) {
            this.description = description;
            this.totalBytes = totalBytes;
            this.startedAt = nanoTime.getAsLong();
            this.lastDrawnAt = startedAt - REDRAW_INTERVAL_NANOS;
        }

        @Override
        public synchronized void advance(long bytes) {
            doneBytes += bytes;
            long now = nanoTime.getAsLong();
            if (now - lastDrawnAt >= REDRAW_INTERVAL_NANOS) {
                lastDrawnAt = now;
                draw(now, false);
            }
        }

        @Override
        public synchronized void close() {
            if (!closed) {
                closed = true;
                draw(nanoTime.getAsLong(), true);
            }
        }

        private void draw(long now, boolean last) {
            terminal.print("\r\033[K" + ProgressLine.format(description, doneBytes, totalBytes, now - startedAt));
            if (last) {
                terminal.println();
            }
            terminal.flush();
        }
    }

    /** Formats the status line; separate so the arithmetic is testable without a terminal. */
    static final class ProgressLine {
        private ProgressLine() {
        }

        static String format(String description, long doneBytes, long totalBytes, long elapsedNanos) {
            double seconds = Math.max(elapsedNanos, 1) / 1e9;
            double rate = doneBytes / seconds;
            StringBuilder line = new StringBuilder(description).append(": ").append(bytes(doneBytes));
            if (totalBytes > 0) {
                line.append(" / ").append(bytes(totalBytes))
                        .append(String.format(Locale.ROOT, " (%d%%)", Math.min(100, doneBytes * 100 / totalBytes)));
            }
            line.append(", ").append(bytes((long) rate)).append("/s");
            if (totalBytes > 0 && rate > 0 && doneBytes < totalBytes) {
                long secondsLeft = (long) Math.ceil((totalBytes - doneBytes) / rate);
                line.append(", ").append(duration(secondsLeft)).append(" left");
            }
            return line.toString();
        }

        static String bytes(long count) {
            if (count < 1024) {
                return count + " B";
            }
            String[] units = {"KiB", "MiB", "GiB", "TiB"};
            double value = count;
            int unit = -1;
            while (value >= 1024 && unit < units.length - 1) {
                value /= 1024;
                unit++;
            }
            return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
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

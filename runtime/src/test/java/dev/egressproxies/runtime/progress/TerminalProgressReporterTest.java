package dev.egressproxies.runtime.progress;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.spi.ProgressReporter;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class TerminalProgressReporterTest {
    private static final long SECOND = 1_000_000_000L;

    @Test
    void showsBytesPercentRateAndTimeLeft() {
        String line = TerminalProgressReporter.ProgressLine.format("downloading debian-12", 100L << 20, 400L << 20,
                4 * SECOND);
        assertThat(line).isEqualTo("downloading debian-12: 100.0 MiB / 400.0 MiB (25%), 25.0 MiB/s, 12s left");
    }

    @Test
    void leavesOutWhatAnUnknownTotalCannotTell() {
        assertThat(TerminalProgressReporter.ProgressLine.format("x", 512, -1, SECOND)).isEqualTo("x: 512 B, 512 B/s");
    }

    @Test
    void formatsLongDurations() {
        assertThat(TerminalProgressReporter.ProgressLine.duration(59)).isEqualTo("59s");
        assertThat(TerminalProgressReporter.ProgressLine.duration(61)).isEqualTo("1m1s");
        assertThat(TerminalProgressReporter.ProgressLine.duration(3720)).isEqualTo("1h2m");
    }

    @Test
    void redrawsAtMostFiveTimesASecondAndEndsTheLine() {
        ByteArrayOutputStream terminal = new ByteArrayOutputStream();
        AtomicLong now = new AtomicLong(0);
        ProgressReporter reporter = new TerminalProgressReporter(new PrintStream(terminal, true,
                StandardCharsets.UTF_8), now::get);
        try (ProgressReporter.Progress progress = reporter.begin("d", 1000)) {
            for (int step = 0; step < 100; step++) {
                now.addAndGet(SECOND / 100);
                progress.advance(10);
            }
        }
        String output = terminal.toString(StandardCharsets.UTF_8);
        long redraws = output.chars().filter(character -> character == '\r').count();
        assertThat(redraws).isBetween(5L, 7L);
        assertThat(output).endsWith("d: 1000 B / 1000 B (100%), 1000 B/s" + System.lineSeparator());
    }

    @Test
    void operationsRunningAtOnceGetALineEachRedrawnAsOneBlock() {
        ByteArrayOutputStream terminal = new ByteArrayOutputStream();
        AtomicLong now = new AtomicLong(0);
        ProgressReporter reporter = new TerminalProgressReporter(new PrintStream(terminal, true,
                StandardCharsets.UTF_8), now::get);
        ProgressReporter.Progress first = reporter.begin("to host-1", 100);
        ProgressReporter.Progress second = reporter.begin("to host-2", 100);
        now.addAndGet(SECOND);
        first.advance(50);
        now.addAndGet(SECOND);
        second.advance(100);
        second.close();
        first.advance(50);
        first.close();

        String output = terminal.toString(StandardCharsets.UTF_8);
        assertThat(output).contains("\033[1A").endsWith("to host-1: 100 B / 100 B (100%), 50 B/s\n\033[K"
                + "to host-2: 100 B / 100 B (100%), 50 B/s" + System.lineSeparator());
    }
}

package dev.egressproxies.runtime.wiring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.spi.ProgressReporter;
import dev.egressproxies.runtime.output.OutputFormat;
import dev.egressproxies.runtime.progress.TerminalProgressReporter;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ServicesModuleTest {

    @Test
    void progressIsShownOnlyToAPersonReadingATable() {
        LoggingModule.LoggingReady logging = new LoggingModule.LoggingReady("warn");
        assertThat(ServicesModule.progress(invocation(OutputFormat.TABLE, true), logging))
                .isInstanceOf(TerminalProgressReporter.class);
        assertThat(ServicesModule.progress(invocation(OutputFormat.JSON, true), logging))
                .isSameAs(ProgressReporter.SILENT);
        assertThat(ServicesModule.progress(invocation(OutputFormat.TABLE, false), logging))
                .isSameAs(ProgressReporter.SILENT);
    }

    @Test
    void theStateDirectoryFollowsXdg() {
        Invocation invocation = new Invocation(null, OutputFormat.TABLE, Duration.ofMinutes(1), 0,
                Map.of("XDG_STATE_HOME", "/var/tmp/xdg"), Path.of("/w"), Path.of("/home/u"), System.out, System.err,
                false);
        assertThat(ServicesModule.stateDirectory(invocation)).isEqualTo(Path.of("/var/tmp/xdg/egress"));
        assertThat(ServicesModule.stateDirectory(invocation(OutputFormat.TABLE, false)))
                .isEqualTo(Path.of("/home/u/.local/state/egress"));
    }

    @Test
    void aRelativeXdgStateHomeIsIgnoredAsTheSpecificationSays() {
        Invocation invocation = new Invocation(null, OutputFormat.TABLE, Duration.ofMinutes(1), 0,
                Map.of("XDG_STATE_HOME", "relative/state"), Path.of("/w"), Path.of("/home/u"), System.out, System.err,
                false);
        assertThat(ServicesModule.stateDirectory(invocation)).isEqualTo(Path.of("/home/u/.local/state/egress"));
    }

    private static Invocation invocation(OutputFormat output, boolean terminal) {
        PrintStream discard = new PrintStream(new ByteArrayOutputStream());
        return new Invocation(null, output, Duration.ofMinutes(1), 0, Map.of(), Path.of("/w"), Path.of("/home/u"),
                discard, discard, terminal);
    }
}

package dev.egressproxies.runtime.progress;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a descriptor link tells about a terminal; the real descriptors are tested end to end. */
class StandardErrorTest {
    @TempDir
    Path temp;

    @Test
    void terminalsArePseudoTerminalsConsolesAndSerialLines() {
        assertThat(StandardError.isTerminalDevice("/dev/pts/3")).isTrue();
        assertThat(StandardError.isTerminalDevice("/dev/tty1")).isTrue();
        assertThat(StandardError.isTerminalDevice("/dev/ttyS0")).isTrue();
        assertThat(StandardError.isTerminalDevice("/dev/tty")).isTrue();
        assertThat(StandardError.isTerminalDevice("/dev/console")).isTrue();
    }

    @Test
    void pipesFilesSocketsAndNullAreNot() {
        assertThat(StandardError.isTerminalDevice("pipe:[48213]")).isFalse();
        assertThat(StandardError.isTerminalDevice("socket:[48213]")).isFalse();
        assertThat(StandardError.isTerminalDevice("/home/u/create.log")).isFalse();
        assertThat(StandardError.isTerminalDevice("/dev/null")).isFalse();
    }

    @Test
    void theLinkIsReadAndWithoutOneTheFallbackAnswers() throws IOException {
        Path terminal = Files.createSymbolicLink(temp.resolve("2"), Path.of("/dev/pts/7"));
        assertThat(StandardError.isTerminal(terminal, () -> false)).isTrue();
        Path file = Files.createSymbolicLink(temp.resolve("3"), temp.resolve("err.log"));
        assertThat(StandardError.isTerminal(file, () -> true)).isFalse();
        assertThat(StandardError.isTerminal(temp.resolve("no-proc"), () -> true)).isTrue();
        assertThat(StandardError.isTerminal(temp.resolve("no-proc"), () -> false)).isFalse();
    }

    @Test
    void theOptionOverridesTheTerminal() {
        assertThat(ProgressMode.AUTO.draws(true)).isTrue();
        assertThat(ProgressMode.AUTO.draws(false)).isFalse();
        assertThat(ProgressMode.ALWAYS.draws(false)).isTrue();
        assertThat(ProgressMode.NEVER.draws(true)).isFalse();
    }
}

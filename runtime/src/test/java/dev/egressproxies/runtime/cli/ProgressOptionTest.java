package dev.egressproxies.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.runtime.wiring.DaggerTestEgressctlComponent;
import dev.egressproxies.runtime.wiring.SpanRecorder;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --progress} decides what the session is told about standard error, before or after the command. */
class ProgressOptionTest {
    @TempDir
    Path temp;

    @Test
    void autoFollowsTheTerminalAndTheOthersOverrideIt() {
        assertThat(drawable(true, "providers")).isTrue();
        assertThat(drawable(false, "providers")).isFalse();
        assertThat(drawable(true, "--progress", "never", "providers")).isFalse();
        assertThat(drawable(false, "providers", "--progress", "always")).isTrue();
        assertThat(drawable(false, "--progress", "AUTO", "providers")).isFalse();
    }

    @Test
    void anUnknownValueIsAUsageError() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = egressctl(false, new ArrayList<>(), err).run("--progress", "sometimes", "providers");
        assertThat(code).isEqualTo(ExitCode.USAGE_OR_CONFIG);
        assertThat(err.toString()).contains("--progress").contains("sometimes");
    }

    private boolean drawable(boolean terminal, String... arguments) {
        List<Boolean> seen = new ArrayList<>();
        int code = egressctl(terminal, seen, new ByteArrayOutputStream()).run(arguments);
        assertThat(code).isZero();
        assertThat(seen).hasSize(1);
        return seen.get(0);
    }

    private Egressctl egressctl(boolean terminal, List<Boolean> seen, ByteArrayOutputStream err) {
        RootCommand.Surroundings surroundings = new RootCommand.Surroundings(Map.of(), temp, temp.resolve("home"),
                new PrintStream(new ByteArrayOutputStream(), true), new PrintStream(err, true), terminal);
        return new Egressctl(surroundings, invocation -> {
            seen.add(invocation.terminal());
            return DaggerTestEgressctlComponent.factory().create(invocation, new SpanRecorder()).session();
        });
    }
}

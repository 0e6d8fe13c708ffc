package dev.egressproxies.runtime.cli;

import dev.egressproxies.runtime.wiring.DaggerTestEgressctlComponent;
import dev.egressproxies.runtime.wiring.SpanRecorder;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Runs {@code egressctl} command lines in-process with the test component, capturing exit code,
 * standard output, standard error and spans.
 */
final class CommandLineHarness {
    /**
     * A harness working in {@code folder}, whose {@code egress.yaml} there has one fake entry
     * {@code lab} with zones {@code zone-a} and {@code zone-b}, kept in {@code lab.json}.
     */
    static CommandLineHarness withTwoZoneFakeEntry(Path folder) throws IOException {
        Files.writeString(folder.resolve("egress.yaml"), """
                providers:
                  - name: lab
                    type: fake
                    zones: [zone-a, zone-b]
                    stateFile: %s
                """.formatted(folder.resolve("lab.json")));
        return new CommandLineHarness(folder.resolve("home"), folder, Map.of());
    }

    private final Path home;
    private final Path workingDirectory;
    private final Map<String, String> environment;

    CommandLineHarness(Path home, Path workingDirectory, Map<String, String> environment) {
        this.home = home;
        this.workingDirectory = workingDirectory;
        this.environment = environment;
    }

    /** Runs one command line. */
    Result run(String... arguments) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        SpanRecorder spans = new SpanRecorder();
        RootCommand.Surroundings surroundings = new RootCommand.Surroundings(environment, workingDirectory, home,
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                false);
        int code = new Egressctl(surroundings,
                invocation -> DaggerTestEgressctlComponent.factory().create(invocation, spans).session())
                .run(arguments);
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8),
                spans.spans());
    }

    /**
     * What a command line did.
     *
     * @param exitCode its exit code
     * @param out      its standard output
     * @param err      its standard error
     * @param spans    the spans it recorded
     */
    record Result(int exitCode, String out, String err, List<SpanData> spans) {
        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- out\n" + out + "--- err\n" + err;
        }
    }
}

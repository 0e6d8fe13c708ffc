package dev.egressproxies.conformance;

import dev.egressproxies.api.spi.ProgressReporter;
import dev.egressproxies.api.spi.ProviderContext;
import io.opentelemetry.api.OpenTelemetry;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Clock;

/**
 * A {@link ProviderContext} for a plugin's tests, such as its conformance test: the real wall clock
 * (the suite compares creation times with its own clock), no telemetry unless the test brings its
 * own, a new HTTP client with the JDK's defaults, no progress display, and a state directory the
 * test chooses (a JUnit {@code @TempDir}).
 */
public final class TestProviderContext implements ProviderContext {
    private final Path stateDirectory;
    private final OpenTelemetry openTelemetry;

    /** A context with inert telemetry. */
    public TestProviderContext(Path stateDirectory) {
        this(stateDirectory, OpenTelemetry.noop());
    }

    /** A context whose spans go to {@code openTelemetry}, such as an SDK with an in-memory exporter. */
    public TestProviderContext(Path stateDirectory, OpenTelemetry openTelemetry) {
        this.stateDirectory = stateDirectory;
        this.openTelemetry = openTelemetry;
    }

    @Override
    public Clock clock() {
        return Clock.systemUTC();
    }

    @Override
    public OpenTelemetry openTelemetry() {
        return openTelemetry;
    }

    @Override
    public HttpClient httpClient() {
        return HttpClient.newHttpClient();
    }

    @Override
    public ProgressReporter progress() {
        return ProgressReporter.SILENT;
    }

    @Override
    public Path stateDirectory() {
        return stateDirectory;
    }
}

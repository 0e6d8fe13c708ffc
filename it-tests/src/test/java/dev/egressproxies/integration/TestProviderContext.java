package dev.egressproxies.integration;

import dev.egressproxies.api.spi.ProgressReporter;
import dev.egressproxies.api.spi.ProviderContext;
import io.opentelemetry.api.OpenTelemetry;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Clock;

/**
 * The services the integration tests share with plugins: the real wall clock (the suite compares
 * creation times with its own clock), no telemetry unless a test brings its own, no progress
 * display, and a state directory of the test's own.
 */
public final class TestProviderContext implements ProviderContext {
    private final Path stateDirectory;
    private final OpenTelemetry openTelemetry;

    public TestProviderContext(Path stateDirectory) {
        this(stateDirectory, OpenTelemetry.noop());
    }

    /** With the test's telemetry, for tests that read the spans a plugin makes. */
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

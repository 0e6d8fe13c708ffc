package dev.egressproxies.conformance;

import dev.egressproxies.api.spi.ProgressReporter;
import dev.egressproxies.api.spi.ProviderContext;
import io.opentelemetry.api.OpenTelemetry;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Clock;

/**
 * A {@link ProviderContext} for a plugin's tests, such as its conformance test: the real wall clock
 * (the suite compares creation times with its own clock) unless a test brings its own, no telemetry
 * unless the test brings its own, an HTTP client with the JDK's defaults (made on first use: a
 * client starts a thread), no progress display, and a state directory the test chooses (a JUnit
 * {@code @TempDir}).
 *
 * @since 1.0.0
 */
public final class TestProviderContext implements ProviderContext {
    private final Path stateDirectory;
    private final OpenTelemetry openTelemetry;
    private final Clock clock;

    /**
     * A context with inert telemetry.
     *
     * @since 1.0.0
     */
    public TestProviderContext(Path stateDirectory) {
        this(stateDirectory, OpenTelemetry.noop(), Clock.systemUTC());
    }

    /**
     * A context whose spans go to {@code openTelemetry}, such as an SDK with an in-memory exporter.
     *
     * @since 1.0.0
     */
    public TestProviderContext(Path stateDirectory, OpenTelemetry openTelemetry) {
        this(stateDirectory, openTelemetry, Clock.systemUTC());
    }

    /**
     * A context with inert telemetry whose time is {@code clock}'s, for tests of a backend's own timing.
     *
     * @since 1.0.0
     */
    public TestProviderContext(Path stateDirectory, Clock clock) {
        this(stateDirectory, OpenTelemetry.noop(), clock);
    }

    private TestProviderContext(Path stateDirectory, OpenTelemetry openTelemetry, Clock clock) {
        this.stateDirectory = stateDirectory;
        this.openTelemetry = openTelemetry;
        this.clock = clock;
    }

    @Override
    public Clock clock() {
        return clock;
    }

    @Override
    public OpenTelemetry openTelemetry() {
        return openTelemetry;
    }

    @Override
    public HttpClient httpClient() {
        return SharedHttpClient.INSTANCE;
    }

    @Override
    public ProgressReporter progress() {
        return ProgressReporter.SILENT;
    }

    @Override
    public Path stateDirectory() {
        return stateDirectory;
    }

    /** Made on first use only. */
    private static final class SharedHttpClient {
        static final HttpClient INSTANCE = HttpClient.newHttpClient();
    }
}

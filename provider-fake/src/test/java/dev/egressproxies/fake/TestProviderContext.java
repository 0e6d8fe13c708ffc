package dev.egressproxies.fake;

import dev.egressproxies.api.spi.ProgressReporter;
import dev.egressproxies.api.spi.ProviderContext;
import io.opentelemetry.api.OpenTelemetry;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Clock;

/**
 * The services a test hands the factory: its own clock and state directory, and inert telemetry,
 * HTTP and progress.
 *
 * @param clock          the clock instances boot by
 * @param stateDirectory where relative state files resolve
 */
record TestProviderContext(Clock clock, Path stateDirectory) implements ProviderContext {

    @Override
    public OpenTelemetry openTelemetry() {
        return OpenTelemetry.noop();
    }

    @Override
    public HttpClient httpClient() {
        return SharedHttpClient.INSTANCE;
    }

    @Override
    public ProgressReporter progress() {
        return ProgressReporter.SILENT;
    }

    /** Made on first use only: the fake never sends a request, and a client starts a thread. */
    private static final class SharedHttpClient {
        static final HttpClient INSTANCE = HttpClient.newHttpClient();
    }
}

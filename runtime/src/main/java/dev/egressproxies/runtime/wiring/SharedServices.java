package dev.egressproxies.runtime.wiring;

import dev.egressproxies.api.spi.ProgressReporter;
import dev.egressproxies.api.spi.ProviderContext;
import io.opentelemetry.api.OpenTelemetry;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Clock;
import java.util.function.Supplier;

/**
 * The {@link ProviderContext} the runtime hands every plugin: one set of services per invocation.
 *
 * @param clock          the wall clock
 * @param openTelemetry  the SDK when an exporter is configured, else the no-op API
 * @param sharedClient   gives the one HTTP client of the invocation, built on first use: most
 *                       commands download nothing
 * @param progress       the terminal progress reporter, or a silent one
 * @param stateDirectory the user's state directory
 */
public record SharedServices(Clock clock, OpenTelemetry openTelemetry, Supplier<HttpClient> sharedClient,
                             ProgressReporter progress, Path stateDirectory) implements ProviderContext {

    @Override
    public HttpClient httpClient() {
        return sharedClient.get();
    }
}

package dev.egressproxies.runtime.wiring;

import dev.egressproxies.api.spi.ProgressReporter;
import dev.egressproxies.api.spi.ProviderContext;
import io.opentelemetry.api.OpenTelemetry;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Clock;

/**
 * The {@link ProviderContext} the runtime hands every plugin: one set of services per invocation.
 *
 * @param clock          the wall clock
 * @param openTelemetry  the configured SDK (no-op exporters unless asked for)
 * @param httpClient     the shared HTTP client
 * @param progress       the terminal progress reporter, or a silent one
 * @param stateDirectory the user's state directory
 */
public record SharedServices(Clock clock, OpenTelemetry openTelemetry, HttpClient httpClient,
                             ProgressReporter progress, Path stateDirectory) implements ProviderContext {
}

package dev.egressproxies.api.spi;

import io.opentelemetry.api.OpenTelemetry;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Clock;

/**
 * The services the platform shares with every plugin when it builds a provider. Plugins use these
 * instead of making their own, so tests can swap them and telemetry ends up in one place.
 *
 * @since 1.0.0
 */
public interface ProviderContext {

    /**
     * The wall clock, for creation times and boot delays.
     *
     * @since 1.0.0
     */
    Clock clock();

    /**
     * Where spans and metrics go; a no-op instance when telemetry is off.
     *
     * @since 1.0.0
     */
    OpenTelemetry openTelemetry();

    /**
     * An HTTP client for downloads (images, catalogues); shared, so connections are reused. It may
     * be built on the first call: ask for it when a download starts, not when the provider is built,
     * so that commands which download nothing never pay for it.
     *
     * @since 1.0.0
     */
    HttpClient httpClient();

    /**
     * Where long operations report progress; silent when nobody watches.
     *
     * @since 1.0.0
     */
    ProgressReporter progress();

    /**
     * A directory where a plugin may keep state between runs of the platform (the user's state
     * directory); plugins make a subdirectory of their own in it.
     *
     * @since 1.0.0
     */
    Path stateDirectory();
}

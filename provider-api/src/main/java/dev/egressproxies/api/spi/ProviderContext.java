package dev.egressproxies.api.spi;

import io.opentelemetry.api.OpenTelemetry;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Clock;

/**
 * The services the platform shares with every plugin when it builds a provider. Plugins use these
 * instead of making their own, so tests can swap them and telemetry ends up in one place.
 */
public interface ProviderContext {

    /** The wall clock, for creation times and boot delays. */
    Clock clock();

    /** Where spans and metrics go; a no-op instance when telemetry is off. */
    OpenTelemetry openTelemetry();

    /**
     * An HTTP client for downloads (images, catalogues); shared, so connections are reused. It may
     * be built on the first call: ask for it when a download starts, not when the provider is built,
     * so that commands which download nothing never pay for it.
     */
    HttpClient httpClient();

    /** Where long operations report progress; silent when nobody watches. */
    ProgressReporter progress();

    /**
     * A directory where a plugin may keep state between runs of the platform (the user's state
     * directory); plugins make a subdirectory of their own in it.
     */
    Path stateDirectory();
}

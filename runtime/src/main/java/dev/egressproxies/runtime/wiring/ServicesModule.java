package dev.egressproxies.runtime.wiring;

import dagger.Lazy;
import dagger.Module;
import dagger.Provides;
import dev.egressproxies.api.spi.ProgressReporter;
import dev.egressproxies.api.spi.ProviderContext;
import dev.egressproxies.runtime.output.OutputFormat;
import dev.egressproxies.runtime.config.StateDirectory;
import dev.egressproxies.runtime.progress.TerminalProgressReporter;
import io.opentelemetry.api.OpenTelemetry;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import javax.inject.Named;
import javax.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Provides the services shared with plugins: clock, HTTP client, progress reporting and the state
 * directory. Tests replace it to fix the clock.
 */
@Module
public final class ServicesModule {
    private static final Logger LOG = LoggerFactory.getLogger(ServicesModule.class);
    /**
     * The JDK client's read buffer in bytes, unless set: images are hundreds of MiB, and at the
     * default 16 KiB the client's thread spent twice the CPU handing buffers on.
     */
    private static final String READ_BUFFER_PROPERTY = "jdk.httpclient.bufsize";
    private static final String READ_BUFFER_BYTES = Integer.toString(256 * 1024);

    private ServicesModule() {
    }

    @Provides
    @Singleton
    static Clock clock() {
        return Clock.systemUTC();
    }

    @Provides
    @Singleton
    static HttpClient httpClient() {
        // The client reads the property once, when its first instance is built; a user's own value stays.
        System.getProperties().putIfAbsent(READ_BUFFER_PROPERTY, READ_BUFFER_BYTES);
        // Redirects are followed for image URLs that point at a mirror; HTTP/1.1 keeps large
        // downloads on one plain connection.
        return HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NORMAL)
                .connectTimeout(Duration.ofSeconds(30))
                .build();
    }

    @Provides
    @Singleton
    static ProgressReporter progress(Invocation invocation, LoggingModule.LoggingReady logging) {
        // Progress is for a person watching: never in JSON mode, never into a pipe or a log file
        // (unless --progress always says so).
        if (invocation.terminal() && invocation.output() == OutputFormat.TABLE) {
            LOG.debug("Progress of long operations is drawn on standard error");
            return new TerminalProgressReporter(invocation.err(), System::nanoTime);
        }
        LOG.debug("Progress of long operations is not drawn ({})", invocation.output() == OutputFormat.JSON
                ? "-o json" : "standard error is no terminal, or --progress never");
        return ProgressReporter.SILENT;
    }

    @Provides
    @Singleton
    @Named("stateDirectory")
    static Path stateDirectory(Invocation invocation) {
        return StateDirectory.resolve(invocation.environment(), invocation.userHome());
    }

    @Provides
    @Singleton
    static ProviderContext providerContext(Clock clock, OpenTelemetry openTelemetry, Lazy<HttpClient> httpClient,
                                           ProgressReporter progress, @Named("stateDirectory") Path stateDirectory) {
        return new SharedServices(clock, openTelemetry, httpClient::get, progress, stateDirectory);
    }
}

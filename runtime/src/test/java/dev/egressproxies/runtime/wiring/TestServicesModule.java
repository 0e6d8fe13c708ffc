package dev.egressproxies.runtime.wiring;

import dagger.Module;
import dagger.Provides;
import dev.egressproxies.api.spi.ProgressReporter;
import dev.egressproxies.api.spi.ProviderContext;
import io.opentelemetry.api.OpenTelemetry;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import javax.inject.Named;
import javax.inject.Singleton;

/** Test services: a clock fixed at {@link #NOW}, and the production state directory rule. */
@Module
public final class TestServicesModule {
    /** The time every test invocation sees. */
    public static final Instant NOW = Instant.parse("2026-01-02T03:04:05Z");

    private TestServicesModule() {
    }

    @Provides
    @Singleton
    static ProviderContext providerContext(Invocation invocation, OpenTelemetry openTelemetry) {
        Path stateDirectory = dev.egressproxies.runtime.config.StateDirectory.resolve(invocation.environment(),
                invocation.userHome());
        HttpClient client = HttpClient.newHttpClient();
        return new SharedServices(Clock.fixed(NOW, ZoneOffset.UTC), openTelemetry, () -> client,
                ProgressReporter.SILENT, stateDirectory);
    }

    @Provides
    @Singleton
    @Named("stateDirectory")
    static Path stateDirectory(ProviderContext context) {
        return context.stateDirectory();
    }
}

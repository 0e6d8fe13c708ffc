package dev.egressproxies.runtime.wiring;

import dagger.Module;
import dagger.Provides;
import dev.egressproxies.runtime.telemetry.Telemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import javax.inject.Singleton;

/**
 * Provides OpenTelemetry, configured from {@code OTEL_*} variables. Tests replace it with an SDK
 * that records spans in memory.
 */
@Module
public final class TelemetryModule {
    private TelemetryModule() {
    }

    @Provides
    @Singleton
    static OpenTelemetrySdk sdk() {
        return Telemetry.configure();
    }

    @Provides
    static OpenTelemetry openTelemetry(OpenTelemetrySdk sdk) {
        return sdk;
    }
}

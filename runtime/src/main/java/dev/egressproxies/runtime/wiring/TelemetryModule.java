package dev.egressproxies.runtime.wiring;

import dagger.Module;
import dagger.Provides;
import dev.egressproxies.runtime.telemetry.Telemetry;
import io.opentelemetry.api.OpenTelemetry;
import javax.inject.Singleton;

/**
 * Provides OpenTelemetry, configured from {@code OTEL_*} variables and {@code otel.*} properties.
 * Tests replace it with an SDK that records spans in memory.
 */
@Module
public final class TelemetryModule {
    private TelemetryModule() {
    }

    @Provides
    @Singleton
    static OpenTelemetry openTelemetry(Invocation invocation) {
        return Telemetry.configure(invocation.environment(), System.getProperties());
    }
}

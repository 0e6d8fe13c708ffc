package dev.egressproxies.runtime.wiring;

import dagger.Module;
import dagger.Provides;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import javax.inject.Singleton;

/** Test telemetry: an SDK whose spans go to the test's {@link SpanRecorder}. */
@Module
public final class TestTelemetryModule {
    private TestTelemetryModule() {
    }

    @Provides
    @Singleton
    static OpenTelemetry openTelemetry(SpanRecorder recorder) {
        return OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder()
                        .addSpanProcessor(SimpleSpanProcessor.create(recorder))
                        .build())
                .build();
    }
}

package dev.egressproxies.runtime.telemetry;

import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import java.util.Map;

/**
 * Builds the OpenTelemetry SDK the standard way, from {@code OTEL_*} environment variables and
 * {@code otel.*} system properties, with no exporter unless one is asked for: a command-line tool
 * must not try to reach a collector that nobody configured.
 */
public final class Telemetry {
    /** Defaults that the environment and system properties override. */
    static final Map<String, String> DEFAULTS = Map.of(
            "otel.service.name", "egressctl",
            "otel.traces.exporter", "none",
            "otel.metrics.exporter", "none",
            "otel.logs.exporter", "none");

    private Telemetry() {
    }

    /** Configures an SDK; the caller closes it at exit, which flushes pending spans. */
    public static OpenTelemetrySdk configure() {
        return AutoConfiguredOpenTelemetrySdk.builder()
                .addPropertiesSupplier(() -> DEFAULTS)
                .disableShutdownHook()
                .build()
                .getOpenTelemetrySdk();
    }
}

package dev.egressproxies.runtime.telemetry;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.slf4j.LoggerFactory;

/**
 * Builds OpenTelemetry the standard way, from {@code OTEL_*} environment variables and {@code otel.*}
 * system properties, with no exporter unless one is asked for: a command-line tool must not try to
 * reach a collector that nobody configured. When no setting names an exporter, the SDK is not built
 * at all (a short-lived command would pay for its classes and threads to record nothing). The
 * launcher puts the SDK on the module path ({@code lib/telemetry}) only when such a setting is made.
 */
public final class Telemetry {
    /** The SDK's module: absent from a run that the launcher judged to export nothing. */
    private static final String SDK_MODULE = "io.opentelemetry.sdk.autoconfigure";

    /** Defaults that the environment and system properties override. */
    static final Map<String, String> DEFAULTS = Map.of(
            "otel.service.name", "egressctl",
            "otel.traces.exporter", "none",
            "otel.metrics.exporter", "none",
            "otel.logs.exporter", "none");

    private static final List<String> SIGNALS = List.of("traces", "metrics", "logs");

    private Telemetry() {
    }

    /**
     * OpenTelemetry for one invocation: the SDK, configured from the settings, when one of them
     * names an exporter; otherwise the no-op API. The caller closes an SDK at exit (it is {@link
     * java.io.Closeable}), which flushes pending spans.
     *
     * @param environment      the process environment ({@code OTEL_TRACES_EXPORTER} and so on)
     * @param systemProperties the system properties ({@code otel.traces.exporter} and so on, which win)
     */
    public static OpenTelemetry configure(Map<String, String> environment, Properties systemProperties) {
        if (!exportRequested(environment, systemProperties)) {
            return OpenTelemetry.noop();
        }
        Module own = Telemetry.class.getModule();
        if (own.isNamed() && own.getLayer().findModule(SDK_MODULE).isEmpty()) {
            LoggerFactory.getLogger(Telemetry.class).warn("Telemetry export is asked for, but the OpenTelemetry SDK"
                    + " ({}) is not on the module path, so nothing is exported; start egressctl with bin/egressctl,"
                    + " which adds lib/telemetry", SDK_MODULE);
            return OpenTelemetry.noop();
        }
        return AutoConfiguredOpenTelemetrySdk.builder()
                .addPropertiesSupplier(() -> DEFAULTS)
                .disableShutdownHook()
                .build()
                .getOpenTelemetrySdk();
    }

    /** Whether a setting names an exporter other than {@code none} for traces, metrics or logs. */
    static boolean exportRequested(Map<String, String> environment, Properties systemProperties) {
        for (String signal : SIGNALS) {
            String value = systemProperties.getProperty("otel." + signal + ".exporter",
                    environment.get("OTEL_" + signal.toUpperCase(Locale.ROOT) + "_EXPORTER"));
            if (value != null && !value.isBlank() && !value.strip().equalsIgnoreCase("none")) {
                return true;
            }
        }
        return false;
    }
}

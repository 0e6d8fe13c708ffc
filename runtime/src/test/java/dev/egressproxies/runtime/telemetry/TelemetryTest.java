package dev.egressproxies.runtime.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class TelemetryTest {

    @Test
    void withoutAnExporterSettingTheSdkIsNotBuilt() {
        assertThat(Telemetry.configure(Map.of(), new Properties())).isSameAs(OpenTelemetry.noop());
        assertThat(Telemetry.configure(Map.of("OTEL_TRACES_EXPORTER", "none", "OTEL_METRICS_EXPORTER", " NONE ",
                "OTEL_LOGS_EXPORTER", "", "OTEL_SERVICE_NAME", "x"), new Properties())).isSameAs(OpenTelemetry.noop());
    }

    @Test
    void anExporterForAnySignalAsksForTheSdk() {
        assertThat(Telemetry.exportRequested(Map.of("OTEL_TRACES_EXPORTER", "logging"), new Properties())).isTrue();
        assertThat(Telemetry.exportRequested(Map.of("OTEL_METRICS_EXPORTER", "otlp"), new Properties())).isTrue();
        assertThat(Telemetry.exportRequested(Map.of("OTEL_LOGS_EXPORTER", "console"), new Properties())).isTrue();
    }

    @Test
    void systemPropertiesWinOverTheEnvironment() {
        Properties off = new Properties();
        off.setProperty("otel.traces.exporter", "none");
        assertThat(Telemetry.exportRequested(Map.of("OTEL_TRACES_EXPORTER", "logging"), off)).isFalse();

        Properties on = new Properties();
        on.setProperty("otel.traces.exporter", "logging");
        assertThat(Telemetry.exportRequested(Map.of(), on)).isTrue();
    }

    @Test
    void anExporterSettingBuildsTheConfiguredSdk() {
        OpenTelemetry configured = Telemetry.configure(Map.of(), properties("otel.traces.exporter", "logging"));
        try {
            assertThat(configured).isInstanceOf(OpenTelemetrySdk.class);
        } finally {
            ((OpenTelemetrySdk) configured).close();
        }
    }

    private static Properties properties(String key, String value) {
        Properties properties = new Properties();
        properties.setProperty(key, value);
        return properties;
    }
}

package dev.egressproxies.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The duration syntax of configuration files. */
class DurationFormatTest {

    @ParameterizedTest
    @CsvSource({
            "500ms, PT0.5S",
            "2s, PT2S",
            "5m, PT5M",
            "1h, PT1H",
            "1h30m, PT1H30M",
            "1h 30m, PT1H30M",
            "2d, PT48H",
            "1m30s250ms, PT1M30.25S",
            "0, PT0S",
            "PT2S, PT2S",
            "pt1m, PT1M",
    })
    void parses(String text, String iso) {
        assertThat(DurationFormat.parse(text)).isEqualTo(Duration.parse(iso));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "30", "5 minutes", "1.5s", "30m1h", "1h1h", "-5s", "PT", "5x", "ms"})
    void rejectsWithAMessageShowingTheAcceptedForms(String text) {
        assertThatThrownBy(() -> DurationFormat.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + text + "' is not a duration")
                .hasMessageContaining("500ms, 2s, 5m, 1h, 1h30m or ISO-8601 PT2S");
    }

    @ParameterizedTest
    @ValueSource(strings = {"-PT5S", "PT-5S"})
    void rejectsNegativeDurations(String text) {
        assertThatThrownBy(() -> DurationFormat.parse(text)).hasMessage("'" + text + "' is negative; a duration must be zero or more");
    }

    @ParameterizedTest
    @CsvSource({"PT0.5S, 500ms", "PT1H30M, 1h30m", "PT48H, 2d", "PT0S, 0s", "PT1M30.25S, 1m30s250ms"})
    void formatsWhatItParses(String iso, String text) {
        assertThat(DurationFormat.format(Duration.parse(iso))).isEqualTo(text);
        assertThat(DurationFormat.parse(text)).isEqualTo(Duration.parse(iso));
    }
}

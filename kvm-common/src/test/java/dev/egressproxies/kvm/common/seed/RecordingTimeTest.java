package dev.egressproxies.kvm.common.seed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Checks the two ECMA-119 date encodings and the range they can hold. */
class RecordingTimeTest {
    private static final Instant INSTANT = Instant.parse("2031-12-25T23:59:58.987654321Z");

    @Test
    void volumeDescriptorDateIsSixteenDigitsWithHundredthsAndAZeroOffset() {
        assertThat(RecordingTime.volumeDescriptorDate(INSTANT))
                .isEqualTo("2031122523595898\0".getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void unspecifiedDateIsSixteenZeroDigitsAndAZeroOffset() {
        assertThat(RecordingTime.unspecifiedVolumeDescriptorDate())
                .isEqualTo("0000000000000000\0".getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void directoryRecordDateCountsYearsSince1900() {
        assertThat(RecordingTime.directoryRecordDate(INSTANT)).containsExactly(131, 12, 25, 23, 59, 58, 0);
    }

    @Test
    void acceptsTheYearsASingleByteAfter1900CanHoldAndNoOthers() {
        assertThat(RecordingTime.requireRepresentable(Instant.parse("1900-01-01T00:00:00Z"))).isNotNull();
        assertThat(RecordingTime.directoryRecordDate(Instant.parse("2155-12-31T23:59:59Z"))[0]).isEqualTo((byte) 255);
        assertThatThrownBy(() -> RecordingTime.requireRepresentable(Instant.parse("2156-01-01T00:00:00Z")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1900 to 2155");
        assertThatThrownBy(() -> RecordingTime.requireRepresentable(Instant.parse("1899-12-31T23:59:59Z")))
                .isInstanceOf(IllegalArgumentException.class);
    }
}

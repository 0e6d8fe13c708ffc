package dev.egressproxies.kvm.common.seed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Checks the numeric encodings of ECMA-119 section 7 and the 1-based byte positions. */
class ByteFieldsTest {
    @Test
    void bytePositionsCountFromOne() {
        assertThat(new ByteFields(3).putUnsigned8(1, 0xAB).putUnsigned8(3, 0xCD).toByteArray())
                .containsExactly(0xAB, 0x00, 0xCD);
    }

    @Test
    void bothEndian16IsLittleEndianThenBigEndian() {
        // ECMA-119 7.2.3's own example: 0x1234 is recorded as 34 12 12 34.
        assertThat(new ByteFields(4).putBothEndian16(1, 0x1234).toByteArray()).containsExactly(0x34, 0x12, 0x12, 0x34);
    }

    @Test
    void bothEndian32IsLittleEndianThenBigEndian() {
        // ECMA-119 7.3.3's own example: 0x12345678 is recorded as 78 56 34 12 12 34 56 78.
        assertThat(new ByteFields(8).putBothEndian32(1, 0x12345678L).toByteArray())
                .containsExactly(0x78, 0x56, 0x34, 0x12, 0x12, 0x34, 0x56, 0x78);
    }

    @Test
    void singleOrderFieldsUseTheirOwnOrder() {
        assertThat(new ByteFields(12)
                .putLittleEndian16(1, 0x0102).putBigEndian16(3, 0x0102)
                .putLittleEndian32(5, 0xF1F2F3F4L).putBigEndian32(9, 0xF1F2F3F4L).toByteArray())
                .containsExactly(0x02, 0x01, 0x01, 0x02, 0xF4, 0xF3, 0xF2, 0xF1, 0xF1, 0xF2, 0xF3, 0xF4);
    }

    @Test
    void refusesValuesTheFieldCannotHold() {
        assertThatThrownBy(() -> new ByteFields(1).putUnsigned8(1, 256)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ByteFields(4).putBothEndian16(1, 0x10000)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ByteFields(8).putBothEndian32(1, 0x1_0000_0000L))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("4294967296");
        assertThatThrownBy(() -> new ByteFields(4).putLittleEndian32(1, -1)).isInstanceOf(IllegalArgumentException.class);
    }
}

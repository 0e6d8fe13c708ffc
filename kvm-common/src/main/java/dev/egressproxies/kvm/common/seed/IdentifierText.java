package dev.egressproxies.kvm.common.seed;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The two ways this writer encodes text fields of fixed width: ECMA-119 a-/d-characters for the
 * primary volume descriptor, and big-endian UCS-2 for the Joliet supplementary one.
 *
 * <p>Both pad with spaces, because ECMA-119 8.4 fills unused identifier positions with (SPACE)
 * characters; Joliet does the same with the 16-bit space, U+0020.
 */
enum IdentifierText {
    /** One byte per character; callers pass only a- or d-characters (ECMA-119 7.4.1). */
    SINGLE_BYTE {
        @Override
        byte[] encode(String text, int fieldLength) {
            byte[] encoded = text.getBytes(StandardCharsets.US_ASCII);
            requireFits(text, encoded.length, fieldLength);
            byte[] field = new byte[fieldLength];
            Arrays.fill(field, (byte) ' ');
            System.arraycopy(encoded, 0, field, 0, encoded.length);
            return field;
        }
    },

    /**
     * Two bytes per character, most significant first, as the Joliet specification asks; a field
     * of odd length (the 37-byte file identifiers of ECMA-119 8.5) ends in one zero byte.
     */
    UCS2_BIG_ENDIAN {
        @Override
        byte[] encode(String text, int fieldLength) {
            byte[] encoded = text.getBytes(StandardCharsets.UTF_16BE);
            requireFits(text, encoded.length, fieldLength);
            byte[] field = new byte[fieldLength];
            for (int offset = 0; offset + 1 < fieldLength; offset += 2) {
                field[offset + 1] = (byte) ' ';
            }
            System.arraycopy(encoded, 0, field, 0, encoded.length);
            return field;
        }
    };

    /**
     * Encodes {@code text} into a field of exactly {@code fieldLength} bytes, padded with spaces.
     *
     * @throws IllegalArgumentException when the text does not fit
     */
    abstract byte[] encode(String text, int fieldLength);

    private static void requireFits(String text, int encodedLength, int fieldLength) {
        if (encodedLength > fieldLength) {
            throw new IllegalArgumentException("'" + text + "' needs " + encodedLength
                    + " bytes but its field holds " + fieldLength);
        }
    }
}

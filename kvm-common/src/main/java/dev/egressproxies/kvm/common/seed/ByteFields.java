package dev.egressproxies.kvm.common.seed;

import java.util.Arrays;

/**
 * A fixed-size structure being filled in field by field, addressed by ECMA-119 byte positions.
 *
 * <p>Byte positions count from 1, as in the standard's tables (ECMA-119 8.4 and 9.1 list "BP 81
 * to 88" and so on), so each call can be checked against the table it implements. Unwritten
 * bytes stay zero, which is what the standard asks of reserved fields.
 */
final class ByteFields {
    private final byte[] bytes;

    ByteFields(int length) {
        this.bytes = new byte[length];
    }

    /** Writes an 8-bit unsigned number (ECMA-119 7.1.1). */
    ByteFields putUnsigned8(int bytePosition, int value) {
        requireRange(value, 0xFF);
        bytes[bytePosition - 1] = (byte) value;
        return this;
    }

    /** Writes a 16-bit number least significant byte first (ECMA-119 7.2.1). */
    ByteFields putLittleEndian16(int bytePosition, int value) {
        requireRange(value, 0xFFFF);
        int offset = bytePosition - 1;
        bytes[offset] = (byte) value;
        bytes[offset + 1] = (byte) (value >>> 8);
        return this;
    }

    /** Writes a 16-bit number most significant byte first (ECMA-119 7.2.2). */
    ByteFields putBigEndian16(int bytePosition, int value) {
        requireRange(value, 0xFFFF);
        int offset = bytePosition - 1;
        bytes[offset] = (byte) (value >>> 8);
        bytes[offset + 1] = (byte) value;
        return this;
    }

    /**
     * Writes a 16-bit number twice, little-endian then big-endian (ECMA-119 7.2.3), so readers
     * on either kind of machine can use it without swapping bytes.
     */
    ByteFields putBothEndian16(int bytePosition, int value) {
        putLittleEndian16(bytePosition, value);
        return putBigEndian16(bytePosition + 2, value);
    }

    /** Writes a 32-bit unsigned number least significant byte first (ECMA-119 7.3.1). */
    ByteFields putLittleEndian32(int bytePosition, long value) {
        requireRange(value, 0xFFFF_FFFFL);
        int offset = bytePosition - 1;
        for (int index = 0; index < 4; index++) {
            bytes[offset + index] = (byte) (value >>> (8 * index));
        }
        return this;
    }

    /** Writes a 32-bit unsigned number most significant byte first (ECMA-119 7.3.2). */
    ByteFields putBigEndian32(int bytePosition, long value) {
        requireRange(value, 0xFFFF_FFFFL);
        int offset = bytePosition - 1;
        for (int index = 0; index < 4; index++) {
            bytes[offset + index] = (byte) (value >>> (8 * (3 - index)));
        }
        return this;
    }

    /** Writes a 32-bit unsigned number twice, little-endian then big-endian (ECMA-119 7.3.3). */
    ByteFields putBothEndian32(int bytePosition, long value) {
        putLittleEndian32(bytePosition, value);
        return putBigEndian32(bytePosition + 4, value);
    }

    /** Copies {@code content} in starting at {@code bytePosition}. */
    ByteFields putBytes(int bytePosition, byte[] content) {
        System.arraycopy(content, 0, bytes, bytePosition - 1, content.length);
        return this;
    }

    /** Returns a copy of the structure as filled in so far. */
    byte[] toByteArray() {
        return Arrays.copyOf(bytes, bytes.length);
    }

    private static void requireRange(long value, long maximum) {
        if (value < 0 || value > maximum) {
            throw new IllegalArgumentException(
                    "value " + value + " does not fit an unsigned field whose maximum is " + maximum);
        }
    }
}

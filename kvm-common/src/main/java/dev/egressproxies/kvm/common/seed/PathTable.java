package dev.egressproxies.kvm.common.seed;

import java.nio.ByteOrder;

/**
 * A path table (ECMA-119 9.4) for a volume whose only directory is the root: a single record
 * naming the root and where its extent starts.
 *
 * <p>Every volume carries two copies, type L with numbers least significant byte first and type
 * M most significant first (6.9.2), so readers can use whichever suits their machine.
 */
final class PathTable {
    /** The table's size in bytes, recorded in the volume descriptor (8.4.14). */
    static final int SIZE_IN_BYTES = 10;

    private static final int ROOT_DIRECTORY_NUMBER = 1;

    private PathTable() {
    }

    /**
     * Encodes the table for a root directory at {@code rootSector} in {@code byteOrder}.
     *
     * <p>The root's identifier is the single byte {@code 0x00} and its parent is itself,
     * directory number 1 (9.4.4, 9.4.6).
     */
    static byte[] encode(long rootSector, ByteOrder byteOrder) {
        ByteFields record = new ByteFields(SIZE_IN_BYTES)
                .putUnsigned8(1, 1) // length of directory identifier
                .putUnsigned8(2, 0); // no extended attribute record
        if (byteOrder == ByteOrder.LITTLE_ENDIAN) {
            record.putLittleEndian32(3, rootSector).putLittleEndian16(7, ROOT_DIRECTORY_NUMBER);
        } else {
            record.putBigEndian32(3, rootSector).putBigEndian16(7, ROOT_DIRECTORY_NUMBER);
        }
        // BP 9 is the identifier 0x00; BP 10 pads the odd-length identifier (9.4.7).
        return record.toByteArray();
    }
}

package dev.egressproxies.kvm.common.seed;

import java.time.Instant;

/**
 * One directory record (ECMA-119 9.1): what a directory says about one of its entries, where its
 * data starts, how long it is, when it was recorded, and whether it is itself a directory.
 *
 * @param fileIdentifier the identifier bytes: {@code 0x00} for the directory itself, {@code 0x01}
 *                       for its parent (6.8.2.2), otherwise a file name in the hierarchy's
 *                       encoding
 * @param extentSector   the logical block where the entry's data starts
 * @param dataLength     the entry's length in bytes
 * @param directory      whether the entry is a directory
 */
record DirectoryRecord(byte[] fileIdentifier, long extentSector, long dataLength, boolean directory) {
    /** The identifier of the record a directory has for itself (ECMA-119 6.8.2.2). */
    static final byte[] SELF = {0x00};
    /** The identifier of the record a directory has for its parent (ECMA-119 6.8.2.2). */
    static final byte[] PARENT = {0x01};

    private static final int FIXED_LENGTH = 33;
    private static final int DIRECTORY_FLAG = 0x02;
    private static final int VOLUME_SEQUENCE_NUMBER = 1;

    /**
     * Returns the length of a record whose identifier has {@code identifierLength} bytes: 33 fixed
     * bytes, the identifier, and a padding byte when the identifier's length is even, so the
     * record's length stays even (9.1.12).
     */
    static int lengthFor(int identifierLength) {
        return FIXED_LENGTH + identifierLength + (identifierLength % 2 == 0 ? 1 : 0);
    }

    /** Encodes the record, with {@code recordedAt} as its recording date (9.1.5). */
    byte[] encode(Instant recordedAt) {
        int length = lengthFor(fileIdentifier.length);
        return new ByteFields(length)
                .putUnsigned8(1, length)
                .putUnsigned8(2, 0) // no extended attribute record
                .putBothEndian32(3, extentSector)
                .putBothEndian32(11, dataLength)
                .putBytes(19, RecordingTime.directoryRecordDate(recordedAt))
                .putUnsigned8(26, directory ? DIRECTORY_FLAG : 0)
                .putUnsigned8(27, 0) // not recorded in interleaved mode: no file unit size
                .putUnsigned8(28, 0) // nor interleave gap
                .putBothEndian16(29, VOLUME_SEQUENCE_NUMBER)
                .putUnsigned8(33, fileIdentifier.length)
                .putBytes(34, fileIdentifier)
                .toByteArray();
    }
}

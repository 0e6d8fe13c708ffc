package dev.egressproxies.kvm.common.seed;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The volume descriptors that open the image: the primary one (ECMA-119 8.4), the Joliet
 * supplementary one (8.5, which has the same layout), and the set terminator (8.3).
 *
 * <p>Byte positions below are those of ECMA-119 table 4 (primary) and table 6 (supplementary).
 */
final class VolumeDescriptors {
    /** The standard identifier every volume descriptor carries (8.1.2). */
    static final byte[] STANDARD_IDENTIFIER = "CD001".getBytes(StandardCharsets.US_ASCII);
    /** The type of the volume descriptor set terminator (8.3.1). */
    static final int TERMINATOR_TYPE = 255;
    /** Recorded in the application identifier, so an image found on a host says what made it. */
    static final String APPLICATION_IDENTIFIER = "EGRESS-PROXIES";

    private static final int DESCRIPTOR_VERSION = 1;
    private static final int FILE_STRUCTURE_VERSION = 1;

    private VolumeDescriptors() {
    }

    /** Encodes the volume descriptor of {@code hierarchy}, one sector long. */
    static byte[] describe(Hierarchy hierarchy, IsoVolume volume, VolumeLayout layout) {
        IdentifierText text = hierarchy.identifierText();
        RootDirectory root = layout.rootDirectory(hierarchy);
        long rootSector = layout.rootDirectorySector(hierarchy);
        byte[] rootRecord = new DirectoryRecord(DirectoryRecord.SELF, rootSector,
                (long) root.sizeInSectors() * VolumeLayout.SECTOR_SIZE, true).encode(volume.recordedAt());
        byte[] recordedAt = RecordingTime.volumeDescriptorDate(volume.recordedAt());
        byte[] unspecified = RecordingTime.unspecifiedVolumeDescriptorDate();
        return header(hierarchy.volumeDescriptorType())
                // BP 8: unused in the primary descriptor; the supplementary one's volume flags
                // stay 0, meaning its escape sequences are registered ones (8.5.3).
                .putBytes(9, text.encode("", 32)) // system identifier
                .putBytes(41, text.encode(hierarchy.volumeIdentifier(volume), 32))
                .putBothEndian32(81, layout.totalSectors()) // volume space size
                .putBytes(89, hierarchy.escapeSequences())
                .putBothEndian16(121, 1) // volume set size: a set of one volume
                .putBothEndian16(125, 1) // this volume's sequence number in the set
                .putBothEndian16(129, VolumeLayout.SECTOR_SIZE) // logical block size
                .putBothEndian32(133, PathTable.SIZE_IN_BYTES)
                .putLittleEndian32(141, layout.pathTableSector(hierarchy, ByteOrder.LITTLE_ENDIAN))
                .putBigEndian32(149, layout.pathTableSector(hierarchy, ByteOrder.BIG_ENDIAN))
                // BP 145 and 153, the optional path table copies, stay 0: there are none.
                .putBytes(157, rootRecord)
                .putBytes(191, text.encode("", 128)) // volume set identifier
                .putBytes(319, text.encode("", 128)) // publisher identifier
                .putBytes(447, text.encode("", 128)) // data preparer identifier
                .putBytes(575, text.encode(APPLICATION_IDENTIFIER, 128))
                .putBytes(703, text.encode("", 37)) // copyright file identifier
                .putBytes(740, text.encode("", 37)) // abstract file identifier
                .putBytes(777, text.encode("", 37)) // bibliographic file identifier
                .putBytes(814, recordedAt) // volume creation date and time
                .putBytes(831, recordedAt) // volume modification date and time
                .putBytes(848, unspecified) // volume expiration: never
                .putBytes(865, unspecified) // volume effective: at once
                .putUnsigned8(882, FILE_STRUCTURE_VERSION)
                .toByteArray();
    }

    /** Encodes the volume descriptor set terminator, one sector long (8.3). */
    static byte[] terminator() {
        return header(TERMINATOR_TYPE).toByteArray();
    }

    /** Starts a descriptor with the fields every type shares (8.1): type, "CD001", version. */
    private static ByteFields header(int type) {
        return new ByteFields(VolumeLayout.SECTOR_SIZE)
                .putUnsigned8(1, type)
                .putBytes(2, STANDARD_IDENTIFIER)
                .putUnsigned8(7, DESCRIPTOR_VERSION);
    }
}

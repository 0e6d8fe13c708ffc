package dev.egressproxies.kvm.common.seed;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The root directory of one hierarchy as it is recorded: its extent of directory records, first
 * the records for itself and its parent, then one per file in ECMA-119 9.3 order.
 */
final class RootDirectory {
    private final Map<String, byte[]> fileIdentifiers;
    private final int sizeInSectors;

    /**
     * Lays out the root directory of {@code hierarchy} for {@code names}.
     *
     * @param names distinct valid {@link IsoFile} names
     */
    RootDirectory(Hierarchy hierarchy, List<String> names) {
        this.fileIdentifiers = hierarchy.fileIdentifiers(names);
        this.sizeInSectors = place(recordLengths()).sizeInSectors();
    }

    /** Returns how many whole sectors the directory's extent takes. */
    int sizeInSectors() {
        return sizeInSectors;
    }

    /** Returns the file identifiers, by file name, in the order they are recorded. */
    Map<String, byte[]> fileIdentifiers() {
        return fileIdentifiers;
    }

    /**
     * Encodes the directory's extent, whole sectors long.
     *
     * @param ownSector    the sector the extent starts at; the root is its own parent (6.8.2.2)
     * @param files        the files by name, for their lengths
     * @param extentSector each file's extent sector, by name
     * @param recordedAt   the recording date of every record
     */
    byte[] encode(long ownSector, Map<String, IsoFile> files, Map<String, Long> extentSector, Instant recordedAt) {
        long ownLength = (long) sizeInSectors * VolumeLayout.SECTOR_SIZE;
        List<DirectoryRecord> records = new ArrayList<>();
        records.add(new DirectoryRecord(DirectoryRecord.SELF, ownSector, ownLength, true));
        records.add(new DirectoryRecord(DirectoryRecord.PARENT, ownSector, ownLength, true));
        fileIdentifiers.forEach((name, identifier) -> records.add(
                new DirectoryRecord(identifier, extentSector.get(name), files.get(name).size(), false)));

        byte[] extent = new byte[sizeInSectors * VolumeLayout.SECTOR_SIZE];
        List<Integer> offsets = place(recordLengths()).offsets();
        for (int index = 0; index < records.size(); index++) {
            byte[] record = records.get(index).encode(recordedAt);
            System.arraycopy(record, 0, extent, offsets.get(index), record.length);
        }
        return extent;
    }

    private List<Integer> recordLengths() {
        List<Integer> lengths = new ArrayList<>();
        lengths.add(DirectoryRecord.lengthFor(DirectoryRecord.SELF.length));
        lengths.add(DirectoryRecord.lengthFor(DirectoryRecord.PARENT.length));
        fileIdentifiers.values().forEach(identifier -> lengths.add(DirectoryRecord.lengthFor(identifier.length)));
        return lengths;
    }

    /**
     * Places records one after another. A record never crosses a sector boundary (ECMA-119
     * 6.8.1.1): one that would starts the next sector, and the rest of the current one stays zero.
     */
    private static Placement place(List<Integer> recordLengths) {
        List<Integer> offsets = new ArrayList<>();
        int offset = 0;
        for (int length : recordLengths) {
            int spaceLeftInSector = VolumeLayout.SECTOR_SIZE - offset % VolumeLayout.SECTOR_SIZE;
            if (length > spaceLeftInSector) {
                offset += spaceLeftInSector;
            }
            offsets.add(offset);
            offset += length;
        }
        return new Placement(offsets, (offset + VolumeLayout.SECTOR_SIZE - 1) / VolumeLayout.SECTOR_SIZE);
    }

    /** Where each record starts in the extent, and how many sectors the extent takes. */
    private record Placement(List<Integer> offsets, int sizeInSectors) {
    }
}

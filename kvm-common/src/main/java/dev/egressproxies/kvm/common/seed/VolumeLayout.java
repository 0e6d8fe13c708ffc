package dev.egressproxies.kvm.common.seed;

import java.nio.ByteOrder;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Where everything goes in the image, in 2048-byte sectors (logical blocks):
 *
 * <pre>
 *   0-15  system area, zero (ECMA-119 6.2.1)
 *   16    primary volume descriptor (8.4); the descriptor set starts at sector 16 (6.2.1)
 *   17    Joliet supplementary volume descriptor (8.5)
 *   18    volume descriptor set terminator (8.3)
 *   19-20 primary path tables, type L then type M (9.4)
 *   21-22 Joliet path tables, type L then type M
 *   23-   primary root directory, then Joliet root directory (whole sectors each)
 *   then  file data, each file starting on a sector of its own, in name order
 * </pre>
 *
 * <p>Both hierarchies point at the same file data, so content is stored once. A path table holds
 * a single record here (the root's, 10 bytes), so each fits one sector.
 */
final class VolumeLayout {
    /** The logical block size, which ECMA-119 allows to be 2048 or more; 2048 is universal. */
    static final int SECTOR_SIZE = 2048;
    static final int PRIMARY_DESCRIPTOR_SECTOR = 16;
    static final int JOLIET_DESCRIPTOR_SECTOR = 17;
    static final int TERMINATOR_SECTOR = 18;

    private static final int FIRST_PATH_TABLE_SECTOR = 19;
    private static final int FIRST_DIRECTORY_SECTOR = 23;

    private final RootDirectory primaryRoot;
    private final RootDirectory jolietRoot;
    private final List<IsoFile> filesInDataOrder;
    private final Map<String, IsoFile> filesByName;
    private final Map<String, Long> extentSectors;
    private final long totalSectors;

    VolumeLayout(IsoVolume volume) {
        this.filesInDataOrder = volume.files().stream().sorted(Comparator.comparing(IsoFile::name)).toList();
        this.filesByName = filesInDataOrder.stream()
                .collect(Collectors.toMap(IsoFile::name, Function.identity(), (first, second) -> first,
                        LinkedHashMap::new));
        List<String> names = filesInDataOrder.stream().map(IsoFile::name).toList();
        this.primaryRoot = new RootDirectory(Hierarchy.PRIMARY, names);
        this.jolietRoot = new RootDirectory(Hierarchy.JOLIET, names);

        long nextSector = FIRST_DIRECTORY_SECTOR + primaryRoot.sizeInSectors() + jolietRoot.sizeInSectors();
        Map<String, Long> extents = new LinkedHashMap<>();
        for (IsoFile file : filesInDataOrder) {
            // An empty file takes no sector; it points where the next data would start, as
            // genisoimage does, which every reader tested accepts.
            extents.put(file.name(), nextSector);
            nextSector += sectorsFor(file.size());
        }
        this.extentSectors = Map.copyOf(extents);
        this.totalSectors = nextSector;
    }

    /** Returns the number of whole sectors {@code bytes} bytes take. */
    static long sectorsFor(long bytes) {
        return (bytes + SECTOR_SIZE - 1) / SECTOR_SIZE;
    }

    /** Returns the root directory of {@code hierarchy}. */
    RootDirectory rootDirectory(Hierarchy hierarchy) {
        return hierarchy == Hierarchy.PRIMARY ? primaryRoot : jolietRoot;
    }

    /** Returns the sector where the root directory of {@code hierarchy} starts. */
    long rootDirectorySector(Hierarchy hierarchy) {
        return hierarchy == Hierarchy.PRIMARY ? FIRST_DIRECTORY_SECTOR : FIRST_DIRECTORY_SECTOR + primaryRoot.sizeInSectors();
    }

    /** Returns the sector of the path table of {@code hierarchy} in {@code byteOrder} (L or M). */
    long pathTableSector(Hierarchy hierarchy, ByteOrder byteOrder) {
        int hierarchyOffset = hierarchy == Hierarchy.PRIMARY ? 0 : 2;
        int orderOffset = byteOrder == ByteOrder.LITTLE_ENDIAN ? 0 : 1;
        return FIRST_PATH_TABLE_SECTOR + hierarchyOffset + orderOffset;
    }

    /** Returns the files in the order their data is written. */
    List<IsoFile> filesInDataOrder() {
        return filesInDataOrder;
    }

    /** Returns the files by name. */
    Map<String, IsoFile> filesByName() {
        return filesByName;
    }

    /** Returns the sector where each file's data starts, by name. */
    Map<String, Long> extentSectors() {
        return extentSectors;
    }

    /** Returns the image's size in sectors: the volume space size (ECMA-119 8.4.8). */
    long totalSectors() {
        return totalSectors;
    }
}

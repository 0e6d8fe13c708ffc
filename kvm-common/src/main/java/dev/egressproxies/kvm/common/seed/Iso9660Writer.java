package dev.egressproxies.kvm.common.seed;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * A writer of single-directory ISO 9660 images: ECMA-119 with a Joliet hierarchy over the same
 * data, so names such as {@code user-data} reach readers unchanged.
 *
 * <p>The output depends only on the {@link IsoVolume}: the same label, recording time and files
 * (in any order) give the same bytes. The image is {@link #imageSize(IsoVolume)} bytes long,
 * a whole number of 2048-byte sectors; the layout is described in {@link VolumeLayout}.
 * Images are made in memory; {@link IsoVolume} bounds their size.
 */
public final class Iso9660Writer {
    private static final byte[] ZERO_SECTOR = new byte[VolumeLayout.SECTOR_SIZE];

    private Iso9660Writer() {
    }

    /** Returns the image of {@code volume}. */
    public static byte[] toByteArray(IsoVolume volume) {
        ByteArrayOutputStream image = new ByteArrayOutputStream(Math.toIntExact(imageSize(volume)));
        try {
            write(volume, image);
        } catch (IOException impossible) {
            throw new UncheckedIOException("a ByteArrayOutputStream failed", impossible);
        }
        return image.toByteArray();
    }

    /**
     * Writes the image of {@code volume} to {@code output}, which it neither flushes nor closes.
     *
     * @throws IOException when {@code output} fails; what was written is then a truncated image
     */
    public static void write(IsoVolume volume, OutputStream output) throws IOException {
        Objects.requireNonNull(volume, "volume");
        Objects.requireNonNull(output, "output");
        VolumeLayout layout = new VolumeLayout(volume);
        for (int sector = 0; sector < VolumeLayout.PRIMARY_DESCRIPTOR_SECTOR; sector++) {
            output.write(ZERO_SECTOR); // the system area, unused here (ECMA-119 6.2.1)
        }
        output.write(VolumeDescriptors.describe(Hierarchy.PRIMARY, volume, layout));
        output.write(VolumeDescriptors.describe(Hierarchy.JOLIET, volume, layout));
        output.write(VolumeDescriptors.terminator());
        // In sector order: primary L, primary M, Joliet L, Joliet M (see VolumeLayout).
        for (Hierarchy hierarchy : Hierarchy.values()) {
            for (ByteOrder byteOrder : new ByteOrder[] {ByteOrder.LITTLE_ENDIAN, ByteOrder.BIG_ENDIAN}) {
                writeSector(output, PathTable.encode(layout.rootDirectorySector(hierarchy), byteOrder));
            }
        }
        for (Hierarchy hierarchy : Hierarchy.values()) {
            output.write(layout.rootDirectory(hierarchy).encode(layout.rootDirectorySector(hierarchy),
                    layout.filesByName(), layout.extentSectors(), volume.recordedAt()));
        }
        for (IsoFile file : layout.filesInDataOrder()) {
            file.writeContentTo(output);
            int partOfLastSector = file.size() % VolumeLayout.SECTOR_SIZE;
            if (partOfLastSector != 0) {
                output.write(ZERO_SECTOR, 0, VolumeLayout.SECTOR_SIZE - partOfLastSector);
            }
        }
    }

    /** Returns the length in bytes of the image of {@code volume}, without building it. */
    public static long imageSize(IsoVolume volume) {
        return new VolumeLayout(Objects.requireNonNull(volume, "volume")).totalSectors() * VolumeLayout.SECTOR_SIZE;
    }

    /** Writes {@code content} padded with zeros to one whole sector. */
    private static void writeSector(OutputStream output, byte[] content) throws IOException {
        output.write(content);
        output.write(ZERO_SECTOR, 0, VolumeLayout.SECTOR_SIZE - content.length);
    }
}

package dev.egressproxies.kvm.xml;

import java.util.Objects;

/**
 * What a storage volume is made of, independent of how the XML is written.
 *
 * @param name          the volume's name in its pool
 * @param capacityBytes its size in bytes
 * @param format        its format, {@code qcow2} or {@code raw}
 * @param backingPath   the path of the volume it overlays, or {@code null} for none
 * @param backingFormat the format of that volume, or {@code null} for none
 */
public record VolumeDefinition(String name, long capacityBytes, String format, String backingPath,
                               String backingFormat) {
    /** The qcow2 format. */
    public static final String QCOW2 = "qcow2";
    /** The raw format. */
    public static final String RAW = "raw";

    /** Requires a name, a positive size and a format; a backing file needs its format. */
    public VolumeDefinition {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(format, "format");
        if (capacityBytes <= 0) {
            throw new IllegalArgumentException("volume " + name + " needs a positive capacity, got " + capacityBytes);
        }
        if ((backingPath == null) != (backingFormat == null)) {
            throw new IllegalArgumentException("volume " + name
                    + " needs both a backing path and its format, or neither");
        }
    }

    /**
     * A raw volume of exactly {@code bytes}, to upload a file of that length into: a seed ISO, or a
     * downloaded image (whatever its format, the upload writes the file's bytes as they are).
     */
    public static VolumeDefinition rawFile(String name, long bytes) {
        return new VolumeDefinition(name, bytes, RAW, null, null);
    }

    /** A qcow2 volume of {@code bytes} that starts as a copy-on-write view of the backing volume. */
    public static VolumeDefinition overlay(String name, long bytes, String backingPath, String backingFormat) {
        return new VolumeDefinition(name, bytes, QCOW2, Objects.requireNonNull(backingPath, "backingPath"),
                Objects.requireNonNull(backingFormat, "backingFormat"));
    }
}

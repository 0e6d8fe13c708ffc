package dev.egressproxies.kvm.common.image;

import java.util.Locale;

/**
 * How a published image file is compressed; the pipeline decompresses it on the fly, so the
 * volume receives the disk image itself.
 */
public enum Compression {
    /** The file is the image (or the tar archive) as it is. */
    NONE("none", ""),
    /** xz (LZMA2), the usual compression of published cloud and appliance images. */
    XZ("xz", ".xz"),
    /** gzip (DEFLATE); concatenated members, as pigz writes them, are read as one stream. */
    GZIP("gzip", ".gz"),
    /** bzip2; concatenated streams, as pbzip2 writes them, are read as one stream. */
    BZIP2("bzip2", ".bz2"),
    /** Zstandard; several frames are read as one stream. */
    ZSTD("zstd", ".zst");

    private final String configName;
    private final String fileSuffix;

    Compression(String configName, String fileSuffix) {
        this.configName = configName;
        this.fileSuffix = fileSuffix;
    }

    /** The name a configuration uses for it: {@code none}, {@code xz}, {@code gzip}, {@code bzip2} or {@code zstd}. */
    public String configName() {
        return configName;
    }

    /** The file name suffix that implies it, such as {@code .xz}; empty for {@link #NONE}. */
    public String fileSuffix() {
        return fileSuffix;
    }

    /**
     * The compression named {@code text}, in any case.
     *
     * @throws IllegalArgumentException for a name that is none of them
     */
    public static Compression parse(String text) {
        String name = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
        for (Compression compression : values()) {
            if (compression.configName.equals(name)) {
                return compression;
            }
        }
        throw new IllegalArgumentException("compression '" + text + "' is not one of none, xz, gzip, bzip2 or zstd");
    }
}

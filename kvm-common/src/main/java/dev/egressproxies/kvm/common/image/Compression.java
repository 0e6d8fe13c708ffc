package dev.egressproxies.kvm.common.image;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Locale;
import org.apache.commons.compress.compressors.bzip2.BZip2CompressorInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream;
import org.apache.commons.compress.compressors.zstandard.ZstdCompressorInputStream;

/** How a published image file is compressed; the fetch decompresses it on the fly. */
public enum Compression {
    /** The file is the image (or the tar archive) as it is. */
    NONE("", ".tar"),
    /** xz (LZMA2), the usual compression of published cloud and appliance images. */
    XZ(".xz", ".tar.xz", ".txz"),
    /** gzip (DEFLATE); concatenated members, as pigz writes them, are read as one stream. */
    GZIP(".gz", ".tar.gz", ".tgz"),
    /** bzip2; concatenated streams, as pbzip2 writes them, are read as one stream. */
    BZIP2(".bz2", ".tar.bz2", ".tbz2", ".tbz"),
    /** Zstandard; several frames are read as one stream. */
    ZSTD(".zst", ".tar.zst", ".tzst");

    /** Fits every xz preset (-9e needs 65 MiB); a file that asks for more is refused rather than exhaust the heap. */
    private static final int XZ_MEMORY_LIMIT_KIB = 128 * 1024;

    private final String fileSuffix;
    /** The suffixes that imply a tar archive compressed this way. */
    final List<String> tarSuffixes;

    Compression(String fileSuffix, String... tarSuffixes) {
        this.fileSuffix = fileSuffix;
        this.tarSuffixes = List.of(tarSuffixes);
    }

    /** The name a configuration uses for it: {@code none}, {@code xz}, {@code gzip}, {@code bzip2} or {@code zstd}. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The file name suffix that implies it, such as {@code .xz}; empty for {@link #NONE}. */
    public String fileSuffix() {
        return fileSuffix;
    }

    /** The compression named {@code text}, in any case; IllegalArgumentException for another name. */
    public static Compression parse(String text) {
        String name = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
        for (Compression compression : values()) {
            if (compression.configName().equals(name)) {
                return compression;
            }
        }
        throw new IllegalArgumentException("compression '" + text + "' is not one of none, xz, gzip, bzip2 or zstd");
    }

    /** {@code published} decoded with Commons Compress; {@code published} itself for none. */
    InputStream decoder(InputStream published) throws IOException {
        return switch (this) {
            case NONE -> published;
            case XZ -> XZCompressorInputStream.builder().setInputStream(published).setDecompressConcatenated(true)
                    .setMemoryLimitKiB(XZ_MEMORY_LIMIT_KIB).get();
            case GZIP -> GzipCompressorInputStream.builder().setInputStream(published).setDecompressConcatenated(true)
                    .get();
            case BZIP2 -> new BZip2CompressorInputStream(published, true);
            // zstd-jni decodes frame after frame by itself; its window is capped by libzstd's default.
            case ZSTD -> new ZstdCompressorInputStream(published);
        };
    }
}

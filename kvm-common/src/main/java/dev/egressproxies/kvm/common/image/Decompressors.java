package dev.egressproxies.kvm.common.image;

import java.io.IOException;
import java.io.InputStream;
import org.apache.commons.compress.compressors.bzip2.BZip2CompressorInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream;
import org.apache.commons.compress.compressors.zstandard.ZstdCompressorInputStream;

/**
 * Opens the Commons Compress decoder for a {@link Compression} over the published bytes. Each
 * decoder works in fixed memory, so the pipeline's memory does not grow with the image; xz's, which
 * depends on the dictionary the file was written with, is capped.
 *
 * <p>Concatenated streams (pigz, pbzip2, several xz streams or zstd frames) are read as one, as the
 * command-line tools do. Opening a decoder reads the stream's header.
 */
final class Decompressors {
    /**
     * The memory an xz decoder may take: xz -9 and -9e need 65 MiB, so every preset fits, and a
     * file that asks for more (a custom dictionary of up to 1.5 GiB) is refused instead of taking
     * the process down.
     */
    static final int XZ_MEMORY_LIMIT_KIB = 128 * 1024;

    private Decompressors() {
    }

    /** {@code published} decoded as {@code compression} says; {@code published} itself for none. */
    static InputStream open(Compression compression, InputStream published) throws IOException {
        return switch (compression) {
            case NONE -> published;
            case XZ -> XZCompressorInputStream.builder()
                    .setInputStream(published)
                    .setDecompressConcatenated(true)
                    .setMemoryLimitKiB(XZ_MEMORY_LIMIT_KIB)
                    .get();
            case GZIP -> GzipCompressorInputStream.builder()
                    .setInputStream(published)
                    .setDecompressConcatenated(true)
                    .get();
            case BZIP2 -> new BZip2CompressorInputStream(published, true);
            // zstd-jni decodes frame after frame by itself; its window is capped by libzstd's default.
            case ZSTD -> new ZstdCompressorInputStream(published);
        };
    }
}

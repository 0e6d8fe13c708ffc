package dev.egressproxies.kvm.common.image;

import java.io.IOException;
import java.io.InputStream;

/**
 * What happens when the image content ends: the rest of the tar archive is read and checked, the
 * decoder is read to its end (which checks its own trailer, such as xz's and gzip's checksums),
 * and then the published bytes to theirs, which checks their length and sha256.
 *
 * <p>The published bytes are all read even when the image ended before them, since the digest
 * covers the whole published file. Reading uses one fixed buffer.
 */
final class PublishedEnd {
    private static final int DRAIN_BUFFER_BYTES = 64 * 1024;

    private final TarMember tar;
    private final InputStream decoded;
    private final PublishedBytes published;

    /**
     * Creates the ending of one fetch.
     *
     * @param tar       the archive member, or null when the image is no archive
     * @param decoded   the decoder's output (the published bytes themselves when uncompressed)
     * @param published the published bytes
     */
    PublishedEnd(TarMember tar, InputStream decoded, PublishedBytes published) {
        this.tar = tar;
        this.decoded = decoded;
        this.published = published;
    }

    /** Reads and checks everything after the image content; throws when a check fails. */
    void confirm() throws IOException {
        if (tar != null) {
            tar.finishArchive();
        }
        byte[] buffer = new byte[DRAIN_BUFFER_BYTES];
        drain(decoded, buffer);
        drain(published, buffer);
        if (!published.verified()) {
            // A read of -1 before the announced length throws in PublishedBytes, so this cannot happen.
            throw new IllegalStateException("the published bytes ended without being checked");
        }
    }

    private static void drain(InputStream stream, byte[] buffer) throws IOException {
        while (stream.read(buffer, 0, buffer.length) != -1) {
            // Discarded: only the checks that reading runs matter here.
        }
    }
}

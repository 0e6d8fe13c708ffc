package dev.egressproxies.kvm.common.image;

import dev.egressproxies.kvm.common.image.ImageFetchException.Reason;
import java.io.IOException;
import java.io.InputStream;
import java.util.OptionalLong;

/**
 * Stacks the layers that turn published bytes into the disk image, as the source declares: the
 * decoder for its compression, then the tar member when it is an archive, under a
 * {@link ContentStream} that confirms the published end before the image's.
 */
final class ImageUnpacking {
    private ImageUnpacking() {
    }

    /**
     * Opens the image content of {@code published}. Reads as far as the decoder's header and, for an
     * archive, the member's header.
     *
     * @throws IOException a {@link FailureLatch.PipelineFailure} carrying why the content cannot be
     *                     opened: the published bytes failed, or they are not what the source declares
     */
    static ContentStream open(ImageSource source, PublishedBytes published, FailureLatch latch,
                              FetchFailures failures) throws IOException {
        String packaging = packaging(source);
        try {
            InputStream decoded = Decompressors.open(source.compression(), published);
            if (source.archive() == Archive.TAR) {
                TarMember member = TarMember.find(decoded, source.archiveMember(), latch, failures);
                return new ContentStream(member.data(), OptionalLong.of(member.length()),
                        new PublishedEnd(member, decoded, published), packaging, latch, failures);
            }
            OptionalLong length = source.compression() == Compression.NONE
                    ? OptionalLong.of(published.length())
                    : OptionalLong.empty();
            return new ContentStream(decoded, length, new PublishedEnd(null, decoded, published), packaging, latch,
                    failures);
        } catch (FailureLatch.PipelineFailure failure) {
            throw failure;
        } catch (IOException | RuntimeException foreign) {
            latch.throwIfRecorded();
            throw latch.record(failures.permanent(Reason.CONTENT_INVALID, "the image from " + failures.url()
                    + " is not " + packaging + " as declared (" + failures.describe(foreign) + "); check the"
                    + " compression and archive declared for it, or fix the file on the server", foreign));
        } catch (LinkageError missingNativeLibrary) {
            // zstd-jni loads its native library on first use; a platform it has none for ends here.
            throw latch.record(failures.permanent(Reason.CONTENT_INVALID, "the image from " + failures.url()
                    + " is " + packaging + ", but the zstd decoder's native library could not be loaded on this"
                    + " machine (" + failures.describe(missingNativeLibrary) + "); publish the image with xz or"
                    + " gzip instead", missingNativeLibrary));
        }
    }

    /** How the source says the image is packed, for messages: "an xz-compressed tar archive". */
    static String packaging(ImageSource source) {
        String container = source.archive() == Archive.TAR ? "tar archive" : "file";
        return switch (source.compression()) {
            case NONE -> "an uncompressed " + container;
            case XZ -> "an xz-compressed " + container;
            case GZIP -> "a gzip-compressed " + container;
            case BZIP2 -> "a bzip2-compressed " + container;
            case ZSTD -> "a zstd-compressed " + container;
        };
    }
}

package dev.egressproxies.kvm.common.image;

import dev.egressproxies.kvm.common.image.ImageFetchException.Reason;
import java.io.IOException;
import java.io.InputStream;
import java.util.OptionalLong;

/**
 * The image's bytes as the consumer reads them, over the decoder and the tar member: counts them,
 * and holds back the last byte (or the end) until the {@link PublishedEnd} confirmed that all
 * published bytes arrived and are the right ones.
 *
 * <p>Any failure below is reported as the pipeline's {@link FailureLatch first failure} when there
 * is one; a decoder's own exception otherwise means the published file is not what the source
 * declares, which is PERMANENT.
 */
final class ContentStream extends InputStream {
    private final InputStream content;
    private final OptionalLong length;
    private final PublishedEnd end;
    private final String packaging;
    private final FailureLatch latch;
    private final FetchFailures failures;
    private volatile long count;
    private volatile boolean finished;

    /**
     * Creates the stream.
     *
     * @param content   the decoded, unpacked image bytes
     * @param length    their number when known in advance
     * @param end       what confirms the published bytes once the content ends
     * @param packaging how the image is packed, for messages: "an xz-compressed file"
     */
    ContentStream(InputStream content, OptionalLong length, PublishedEnd end, String packaging, FailureLatch latch,
                  FetchFailures failures) {
        this.content = content;
        this.length = length;
        this.end = end;
        this.packaging = packaging;
        this.latch = latch;
        this.failures = failures;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int read = read(one, 0, 1);
        return read == -1 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] buffer, int offset, int wanted) throws IOException {
        if (finished) {
            return -1;
        }
        if (wanted == 0) {
            return 0;
        }
        if (length.isPresent() && count == length.getAsLong()) {
            // Only for a zero-length member: a longer content finished in the read of its last byte.
            finish();
            return -1;
        }
        int limit = length.isPresent() ? (int) Math.min(wanted, length.getAsLong() - count) : wanted;
        int read = guarded(() -> content.read(buffer, offset, limit));
        if (read == -1) {
            if (length.isPresent()) {
                throw latch.record(failures.permanent(Reason.CONTENT_INVALID, "the image in " + packaging + " from "
                        + failures.url() + " ended after " + count + " of the " + length.getAsLong()
                        + " bytes its archive header announced; fix the file on the server", null));
            }
            finish();
            return -1;
        }
        count += read;
        if (length.isPresent() && count == length.getAsLong()) {
            finish();
        }
        return read;
    }

    /** The image's length, when known before it arrives. */
    OptionalLong length() {
        return length;
    }

    /** How many image bytes were delivered. */
    long count() {
        return count;
    }

    /** Whether the content ended and the published bytes were confirmed. */
    boolean finished() {
        return finished;
    }

    private void finish() throws IOException {
        guarded(() -> {
            end.confirm();
            return 0;
        });
        finished = true;
    }

    /** Runs a read below, turning a foreign failure into the pipeline's. */
    private int guarded(Read read) throws IOException {
        try {
            return read.run();
        } catch (FailureLatch.PipelineFailure failure) {
            throw failure;
        } catch (IOException | RuntimeException foreign) {
            // A failure the pipeline recorded (a closed body, a short read) shows up in the decoder
            // as whatever it makes of it; the recorded one is the truth.
            latch.throwIfRecorded();
            throw latch.record(failures.permanent(Reason.CONTENT_INVALID, "the image from " + failures.url()
                    + " is not " + packaging + " as declared (" + failures.describe(foreign) + "); check the"
                    + " compression and archive declared for it, or fix the file on the server", foreign));
        }
    }

    /** One read from the layers below. */
    @FunctionalInterface
    private interface Read {
        int run() throws IOException;
    }
}

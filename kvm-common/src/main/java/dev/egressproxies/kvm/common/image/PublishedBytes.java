package dev.egressproxies.kvm.common.image;

import dev.egressproxies.api.spi.ProgressReporter;
import dev.egressproxies.kvm.common.image.ImageFetchException.Reason;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;

/**
 * The HTTP body of an image as published: counts and hashes every byte, reports progress, and
 * checks the count against the Content-Length and the hash against the pinned sha256.
 *
 * <p>The checks run in the read that reaches the announced length, before that read returns: the
 * layers above (decoder, consumer) never see the last published bytes unless they are complete
 * and, when a digest is pinned, the right ones. A body that ends early is TRANSIENT ("the server
 * sent N of M bytes"), and so is one that stalls for the idle limit; one that goes on past its length, or whose digest differs, is PERMANENT.
 *
 * <p>Read by one thread at a time; {@link #count()} may be read from any thread.
 */
final class PublishedBytes extends InputStream {
    private final InputStream body;
    private final long length;
    private final Optional<String> expectedSha256;
    private final ProgressReporter.Progress progress;
    private final FailureLatch latch;
    private final FetchFailures failures;
    private final TransferClock clock;
    private final MessageDigest digest = newSha256();
    private volatile long count;
    private String sha256;

    PublishedBytes(InputStream body, long length, Optional<String> expectedSha256, ProgressReporter.Progress progress,
                   FailureLatch latch, FetchFailures failures, TransferClock clock) {
        this.body = body;
        this.length = length;
        this.expectedSha256 = expectedSha256;
        this.progress = progress;
        this.latch = latch;
        this.failures = failures;
        this.clock = clock;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int read = read(one, 0, 1);
        return read == -1 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] buffer, int offset, int wanted) throws IOException {
        if (sha256 != null) {
            return -1;
        }
        latch.throwIfRecorded();
        if (Thread.currentThread().isInterrupted()) {
            throw latch.record(failures.interrupted("interrupted after " + progressText() + " arrived from "
                    + failures.url(), null));
        }
        if (wanted == 0) {
            return 0;
        }
        int read = readBody(buffer, offset, wanted);
        if (read == -1) {
            throw latch.record(failures.transientFailure(Reason.BODY_BROKEN, "the server sent " + count + " of "
                    + length + " bytes of the image from " + failures.url() + " and ended the response; retry", null));
        }
        digest.update(buffer, offset, read);
        count += read;
        progress.advance(read);
        if (count > length) {
            throw tooLong();
        }
        if (count == length) {
            confirmEnd();
            verify();
        }
        return read;
    }

    /** How many published bytes arrived so far. */
    long count() {
        return count;
    }

    /** The announced length. */
    long length() {
        return length;
    }

    /** Whether all published bytes arrived and passed the checks. */
    boolean verified() {
        return sha256 != null;
    }

    /** The lowercase hex sha256 of the published bytes; only once {@link #verified()}. */
    String sha256() {
        if (sha256 == null) {
            throw new IllegalStateException("the image's published bytes have not all arrived yet");
        }
        return sha256;
    }

    /** "N of M bytes", for messages. */
    String progressText() {
        return count + " of " + length + " bytes";
    }

    private int readBody(byte[] buffer, int offset, int wanted) throws IOException {
        try {
            return body.read(buffer, offset, wanted);
        } catch (SocketTimeoutException idle) {
            latch.throwIfRecorded();
            throw latch.record(clock.stalled(failures, "after " + progressText() + " of the image arrived", idle));
        } catch (IOException broken) {
            // A watchdog that closed the body recorded why first; that is the failure to report.
            latch.throwIfRecorded();
            if (Thread.currentThread().isInterrupted() || broken instanceof java.io.InterruptedIOException) {
                throw latch.record(failures.interrupted("interrupted after " + progressText() + " arrived from "
                        + failures.url(), broken));
            }
            throw latch.record(failures.transientFailure(Reason.BODY_BROKEN, "the server sent " + progressText()
                    + " of the image from " + failures.url() + " before the connection broke ("
                    + failures.describe(broken) + "); retry", broken));
        }
    }

    /** Makes sure the body ends at the announced length. */
    private void confirmEnd() throws IOException {
        byte[] probe = new byte[1];
        int extra = readBody(probe, 0, 1);
        if (extra > 0) {
            throw tooLong();
        }
    }

    private IOException tooLong() {
        return latch.record(failures.permanent(Reason.BODY_BROKEN, "the server sent more bytes of the image from "
                + failures.url() + " than the " + length + " its Content-Length announced; fix the server", null));
    }

    private void verify() throws IOException {
        String actual = HexFormat.of().formatHex(digest.digest());
        if (expectedSha256.isPresent() && !expectedSha256.get().equals(actual)) {
            throw latch.record(failures.permanent(Reason.DIGEST_MISMATCH, "the image from " + failures.url()
                    + " has sha256 " + actual + ", not the configured " + expectedSha256.get() + "; if the image"
                    + " was replaced on purpose, configure its new sha256 (under a new image name, so hosts that"
                    + " cached the old one are not mixed up), otherwise fix the file on the server", null));
        }
        sha256 = actual;
    }

    private static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException impossible) {
            // Every Java platform must provide SHA-256.
            throw new IllegalStateException("this Java runtime has no SHA-256", impossible);
        }
    }
}

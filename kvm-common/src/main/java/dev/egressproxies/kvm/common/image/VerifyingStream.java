package dev.egressproxies.kvm.common.image;

import dev.egressproxies.kvm.common.image.ImageFetchException.Reason;
import java.io.IOException;
import java.io.InputStream;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;
import org.apache.commons.io.input.BoundedInputStream;

/**
 * The published bytes of an image, checked: hashed (sha256) and bounded to one byte past the
 * Content-Length, their count checked against it and their hash against the pinned sha256.
 */
final class VerifyingStream extends InputStream {
    private final BoundedInputStream bounded;
    private final DigestInputStream hashed;
    private final long length;
    private final Optional<String> expectedSha256;
    private final FetchAttempt attempt;
    private String sha256;

    VerifyingStream(InputStream body, long length, Optional<String> expectedSha256, FetchAttempt attempt)
            throws IOException {
        // One byte past the length, so a body that goes on is seen, and never more.
        this.bounded = BoundedInputStream.builder().setInputStream(body).setMaxCount(length + 1)
                .setPropagateClose(false).get();
        try {
            this.hashed = new DigestInputStream(bounded, MessageDigest.getInstance("SHA-256"));
        } catch (NoSuchAlgorithmException impossible) {
            throw new IllegalStateException("this Java runtime has no SHA-256", impossible);
        }
        this.length = length;
        this.expectedSha256 = expectedSha256;
        this.attempt = attempt;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) == -1 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] buffer, int offset, int wanted) throws IOException {
        if (sha256 != null) {
            return -1;
        }
        attempt.throwIfFailed();
        if (wanted == 0) {
            return 0;
        }
        int read = hashed.read(buffer, offset, wanted);
        if (read == -1) {
            throw attempt.fail(attempt.transientFailure(Reason.BODY_BROKEN, "the server sent " + count() + " of "
                    + length + " bytes of the image from " + attempt.url() + " and ended the response; retry", null));
        }
        if (count() > length || count() == length && hashed.read() != -1) {
            throw attempt.fail(attempt.permanent(Reason.BODY_BROKEN, "the server sent more bytes of the image from "
                    + attempt.url() + " than the " + length + " its Content-Length announced; fix the server", null));
        }
        if (count() == length) {
            String actual = HexFormat.of().formatHex(hashed.getMessageDigest().digest());
            if (expectedSha256.isPresent() && !expectedSha256.get().equals(actual)) {
                throw attempt.fail(attempt.permanent(Reason.DIGEST_MISMATCH, "the image from " + attempt.url()
                        + " has sha256 " + actual + ", not the configured " + expectedSha256.get() + "; if the image"
                        + " was replaced on purpose, configure its new sha256 (under a new image name, so hosts that"
                        + " cached the old one are not mixed up), otherwise fix the file on the server", null));
            }
            sha256 = actual;
        }
        return read;
    }

    long count() {
        return bounded.getCount();
    }

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
}

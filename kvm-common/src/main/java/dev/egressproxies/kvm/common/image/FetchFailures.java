package dev.egressproxies.kvm.common.image;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.kvm.common.image.ImageFetchException.Reason;
import java.net.URI;

/**
 * Makes the {@link ImageFetchException}s of one fetch or probe: knows the image's redacted URL for
 * the messages and its secrets for the causes, so no caller has to remember to redact.
 */
final class FetchFailures {
    private final RedactedUrl url;
    private final UrlSecrets secrets;

    private FetchFailures(RedactedUrl url, UrlSecrets secrets) {
        this.url = url;
        this.secrets = secrets;
    }

    /** The failures of a fetch from {@code url}. */
    static FetchFailures of(URI url) {
        return new FetchFailures(RedactedUrl.of(url), UrlSecrets.of(url));
    }

    /** The URL as messages show it. */
    RedactedUrl url() {
        return url;
    }

    /** The simple class name and scrubbed message of a foreign exception, for quoting in a message. */
    String describe(Throwable foreign) {
        return RedactedCause.describe(foreign, secrets);
    }

    /** A failure a retry cannot heal; {@code cause} is redacted here. */
    ImageFetchException permanent(Reason reason, String message, Throwable cause) {
        return create(ErrorKind.PERMANENT, reason, message, cause);
    }

    /** A failure a retry may heal; {@code cause} is redacted here. */
    ImageFetchException transientFailure(Reason reason, String message, Throwable cause) {
        return create(ErrorKind.TRANSIENT, reason, message, cause);
    }

    /**
     * The failure of a fetch whose thread was interrupted. Sets the thread's interrupt flag again,
     * since catching the interruption cleared it and the caller must still see it.
     */
    ImageFetchException interrupted(String message, Throwable cause) {
        Thread.currentThread().interrupt();
        return create(ErrorKind.TRANSIENT, Reason.INTERRUPTED, message, cause);
    }

    private ImageFetchException create(ErrorKind kind, Reason reason, String message, Throwable cause) {
        Throwable redacted = cause instanceof ImageFetchException own ? own : RedactedCause.of(cause, secrets);
        // The message is the pipeline's own, built from the redacted URL and scrubbed foreign text.
        return new ImageFetchException(kind, reason, message, redacted);
    }
}

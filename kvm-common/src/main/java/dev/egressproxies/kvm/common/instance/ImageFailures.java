package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.image.ImageFetchException;

/**
 * The translation of a failed image fetch or size probe into the contract's error: the kind the
 * pipeline classified (4xx, no or zero Content-Length, a digest mismatch PERMANENT; 5xx, 429, a
 * broken body, a passed deadline or budget TRANSIENT), its message, which names the image only by
 * its redacted URL and says what to do, and an interrupt as the contract's interrupt error.
 *
 * <p>The caller leads the message with what names the image in its configuration (a catalogue
 * key, a setting): the URL's host alone cannot tell which of several images published on one
 * server failed.
 *
 * <p>Translate inside the host call the fetch runs in: the connection pool would take an exception
 * it does not know for a broken link.
 */
public final class ImageFailures {
    private ImageFailures() {
    }

    /** The contract error for {@code failure}, which happened during {@code call}. */
    public static ProviderException translate(ImageFetchException failure, Call call) {
        return translate(failure, call, "");
    }

    /**
     * The contract error for {@code failure}, its message led by {@code subject} (such as the
     * setting that names the image), which must not show more of the URL than its redacted form.
     */
    public static ProviderException translate(ImageFetchException failure, Call call, String subject) {
        String message = subject.isEmpty() ? failure.getMessage() : subject + ": " + failure.getMessage();
        if (failure.reason() == ImageFetchException.Reason.INTERRUPTED) {
            InterruptedException interrupted = new InterruptedException(message);
            interrupted.initCause(failure);
            return call.interrupted(interrupted);
        }
        return call.failure(failure.kind(), message, failure);
    }
}

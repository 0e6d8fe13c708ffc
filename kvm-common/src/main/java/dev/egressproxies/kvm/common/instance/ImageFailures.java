package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.image.ImageFetchException;

/**
 * A failed image fetch or size probe as the contract's error, of the kind the pipeline classified.
 * Translate inside the fetch's host call: the pool takes any other exception for a broken link.
 */
public final class ImageFailures {
    private ImageFailures() {
    }

    /** The error for {@code failure} during {@code call}, led by {@code subject} (never more than the redacted URL). */
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

package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.image.ImageFetchException;

/**
 * A failed image fetch or size probe as the contract's error, of the kind the pipeline classified
 * (4xx, digest mismatch PERMANENT; 5xx, 429, broken body, deadline TRANSIENT). Translate inside the
 * host call the fetch runs in: the pool takes any other exception for a broken link.
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

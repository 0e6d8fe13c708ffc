package dev.egressproxies.kvm2;

import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.image.ImageFetchException;
import dev.egressproxies.kvm.common.instance.Call;

/**
 * The translation of a failed image fetch or size probe into the contract's error: the kind the
 * pipeline classified (4xx, no or zero Content-Length, a digest mismatch PERMANENT; 5xx, 429, a
 * broken body, a passed deadline or budget TRANSIENT), its message, which names the image only by
 * its redacted URL and says what to do, and an interrupt as the contract's interrupt error.
 */
final class ImageFailures {
    private ImageFailures() {
    }

    /** The contract error for {@code failure}, which happened during {@code call}. */
    static ProviderException translate(ImageFetchException failure, Call call) {
        if (failure.reason() == ImageFetchException.Reason.INTERRUPTED) {
            InterruptedException interrupted = new InterruptedException(failure.getMessage());
            interrupted.initCause(failure);
            return call.interrupted(interrupted);
        }
        return call.failure(failure.kind(), failure.getMessage(), failure);
    }
}

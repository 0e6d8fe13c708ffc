package dev.egressproxies.kvm2;

import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.image.ImageFetchException;
import dev.egressproxies.kvm.common.instance.Call;

/**
 * The translation of a failed image fetch or size probe into the contract's error: the kind the
 * pipeline classified (4xx, no or zero Content-Length, a digest mismatch PERMANENT; 5xx, 429, a
 * broken body, a passed deadline or budget TRANSIENT), its message, which names the image only by
 * its redacted URL and says what to do, and an interrupt as the contract's interrupt error.
 *
 * <p>A catalogue image's key leads the message: the URL's host alone cannot tell which of several
 * images published on one server failed.
 */
final class ImageFailures {
    private ImageFailures() {
    }

    /** The contract error for {@code failure} of {@code image}, which happened during {@code call}. */
    static ProviderException translate(ImageFetchException failure, Kvm2Image image, Call call) {
        if (failure.reason() == ImageFetchException.Reason.INTERRUPTED) {
            InterruptedException interrupted = new InterruptedException(failure.getMessage());
            interrupted.initCause(failure);
            return call.interrupted(interrupted);
        }
        return call.failure(failure.kind(), image.namedIn(failure.getMessage()), failure);
    }
}

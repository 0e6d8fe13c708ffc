package dev.egressproxies.kvm.common.image;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The first failure of one fetch, shared by the stream layers, the watchdog and the fetcher: the
 * first recorded failure is the one reported, whatever later failures it causes on its way out
 * (a closed body, an aborted decoder, a consumer that gives up).
 */
final class FailureLatch {
    private final AtomicReference<ImageFetchException> first = new AtomicReference<>();

    /**
     * Records {@code failure} unless one was recorded before, and returns the exception that carries
     * the recorded one through the stream layers.
     */
    PipelineFailure record(ImageFetchException failure) {
        first.compareAndSet(null, failure);
        return new PipelineFailure(first.get());
    }

    /** The first recorded failure, or null. */
    ImageFetchException recorded() {
        return first.get();
    }

    /** Throws the carrier of the recorded failure, if there is one. */
    void throwIfRecorded() throws PipelineFailure {
        ImageFetchException failure = first.get();
        if (failure != null) {
            throw new PipelineFailure(failure);
        }
    }

    /**
     * The {@link IOException} that carries a pipeline failure up through stream layers the pipeline
     * did not write (decoders, the consumer's reads), which only pass IOExceptions on.
     */
    static final class PipelineFailure extends IOException {
        private static final long serialVersionUID = 1L;

        private final ImageFetchException failure;

        PipelineFailure(ImageFetchException failure) {
            // The message is the failure's, so a consumer quoting it says what happened.
            super(failure.getMessage(), failure);
            this.failure = failure;
        }

        /** The failure it carries. */
        ImageFetchException failure() {
            return failure;
        }
    }
}

package dev.egressproxies.kvm.common.image;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.spi.ProgressReporter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.util.function.Supplier;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fetches a published image over HTTP and streams it, decompressed and unpacked, into a consumer
 * (a volume upload), checking the published bytes' length and sha256 on the way: no temporary
 * files, and memory that does not grow with the image.
 *
 * <p>The pipeline: GET (redirects followed by the {@link HttpClient} given) → the published bytes,
 * counted and hashed → the decoder for the declared compression → the declared tar member → the
 * consumer. The published bytes are checked when they end, before the consumer receives the last
 * image byte (or the image's end): a consumer that writes exactly what it reads never completes a
 * write of bytes that fail the checks, because its read fails first.
 *
 * <p>Time: the body must end within the {@link TransferBudget}'s body limit and before the
 * caller's {@link Deadline}; a watchdog closes it when either passes. A server that stays silent
 * for the idle limit (no response headers, or no next byte of the body) fails the fetch TRANSIENT
 * at once, naming the limit and the bytes that arrived; the limit never outlasts the deadline. A
 * read on an interrupted thread fails at once, and so does one blocked on the body when its thread
 * is interrupted.
 *
 * <p>Failure semantics: every failure is an {@link ImageFetchException} (classified TRANSIENT or
 * PERMANENT, with a message that names the image by its {@link RedactedUrl} and says what to do),
 * except a failure of the consumer's own, which is rethrown as it is. When the fetch fails after
 * the consumer began, the consumer may have written part of the image, or, if it stopped reading
 * early and returned, all of it unchecked: the caller must delete what the consumer wrote, and
 * write its completeness marker only after {@code fetch} returned.
 *
 * <p>Thread-safe; one instance serves any number of concurrent fetches.
 */
public final class ImageFetcher {
    /**
     * How long an image server may stay silent unless configured: a healthy server answers and
     * streams well within it, and a stalled one is noticed long before a create's deadline.
     */
    public static final Duration DEFAULT_IDLE_LIMIT = Duration.ofSeconds(30);
    private static final Logger LOG = LoggerFactory.getLogger(ImageFetcher.class);

    private final Supplier<HttpClient> client;
    private final ProgressReporter progress;
    private final TransferBudget budget;
    private final Duration idleLimit;

    /** Creates a fetcher whose servers may stay silent for {@link #DEFAULT_IDLE_LIMIT}. */
    public ImageFetcher(Supplier<HttpClient> client, ProgressReporter progress, TransferBudget budget) {
        this(client, progress, budget, DEFAULT_IDLE_LIMIT);
    }

    /**
     * Creates a fetcher.
     *
     * @param client    the HTTP client, asked for on the first request (a provider that downloads
     *                  nothing never builds one); its redirect policy decides which redirects are followed
     * @param progress  where the download's progress is reported, in published bytes
     * @param budget    the time limit of one transfer
     * @param idleLimit how long the server may stay silent: for the response headers, and between
     *                  bytes of the body; positive
     */
    public ImageFetcher(Supplier<HttpClient> client, ProgressReporter progress, TransferBudget budget, Duration idleLimit) {
        this.client = Objects.requireNonNull(client, "client");
        this.progress = Objects.requireNonNull(progress, "progress");
        this.budget = Objects.requireNonNull(budget, "budget");
        this.idleLimit = requirePositive(idleLimit);
    }

    /** {@code idleLimit}, checked to be positive. */
    static Duration requirePositive(Duration idleLimit) {
        Objects.requireNonNull(idleLimit, "idleLimit");
        if (idleLimit.isNegative() || idleLimit.isZero()) {
            throw new IllegalArgumentException("the image idle limit must be positive, not " + idleLimit);
        }
        return idleLimit;
    }

    /**
     * Fetches the image and hands it to {@code consumer}, on the calling thread.
     *
     * @param source      what to fetch
     * @param description what the progress report says, such as "downloading debian-12 to host-1"
     * @param deadline    when the caller gives up; the fetch then fails within about a second
     * @param consumer    where the image goes; must read it to its end
     * @return what was delivered, once the published bytes passed every check
     * @throws ImageFetchException  when the fetch fails; see the class comment for what the caller
     *                              must clean up
     * @throws IllegalStateException when the consumer returned without reading the image to its end
     */
    public FetchResult fetch(ImageSource source, String description, Deadline deadline, ImageConsumer consumer) {
        FetchFailures failures = FetchFailures.of(source.url());
        TransferClock clock = TransferClock.forTransfer(deadline, budget, idleLimit);
        long started = System.nanoTime();
        LOG.debug("{}: GET from {} (idle limit {})", description, failures.url(), DurationText.of(idleLimit));
        try {
            HttpResponse<BodyStream> response = ImageRequests.send(client.get(), source.url(), "GET", clock, failures);
            BodyStream body = response.body();
            try {
                long length = ResponseClassifier.publishedLength(response, failures);
                LOG.debug("{}: {} answered {}, {} bytes announced", description, failures.url(),
                        response.statusCode(), length);
                FetchResult result = transfer(source, description, clock, failures, body, length, consumer);
                LOG.debug("{}: fetched {} bytes from {} ({} as image) in {} ms", description, result.publishedBytes(),
                        failures.url(), result.decompressedBytes(), millisSince(started));
                return result;
            } finally {
                // Also ends reads another thread may still make, when the consumer handed the stream on.
                body.close();
            }
        } catch (ImageFetchException failure) {
            LOG.debug("{}: fetch from {} failed after {} ms: {}", description, failures.url(), millisSince(started),
                    failure.getMessage());
            throw failure;
        }
    }

    private static long millisSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    private FetchResult transfer(ImageSource source, String description, TransferClock clock, FetchFailures failures,
                                 BodyStream body, long length, ImageConsumer consumer) {
        FailureLatch latch = new FailureLatch();
        try (ProgressReporter.Progress shown = progress.begin(description, length)) {
            PublishedBytes published = new PublishedBytes(body, length, source.sha256(), shown, latch, failures,
                    clock);
            BodyWatchdog watchdog = BodyWatchdog.start(clock, published, body, latch, failures);
            try {
                ContentStream content = open(source, published, latch, failures);
                deliver(consumer, content, latch);
                if (!content.finished()) {
                    throw new IllegalStateException("the image consumer returned after reading " + content.count()
                            + " bytes of the image, before its end; it must read the whole image");
                }
                return new FetchResult(published.count(), published.sha256(), content.count());
            } finally {
                watchdog.close();
            }
        }
    }

    private static ContentStream open(ImageSource source, PublishedBytes published, FailureLatch latch,
                                      FetchFailures failures) {
        try {
            return ImageUnpacking.open(source, published, latch, failures);
        } catch (FailureLatch.PipelineFailure failure) {
            throw failure.failure();
        } catch (IOException unexpected) {
            // ImageUnpacking turns every IOException into a recorded pipeline failure.
            throw new IllegalStateException("opening the image content failed unrecorded", unexpected);
        }
    }

    /**
     * Runs the consumer. When it fails and the pipeline recorded a failure, the pipeline's is the
     * cause (the consumer failed because its reads did) and is thrown; otherwise the consumer's own
     * failure is rethrown unchanged, for the caller to classify.
     */
    private static void deliver(ImageConsumer consumer, ContentStream content, FailureLatch latch) {
        try {
            consumer.accept(new ImageContent(content, content.length()));
        } catch (IOException | RuntimeException failure) {
            ImageFetchException recorded = latch.recorded();
            if (recorded != null) {
                throw recorded;
            }
            if (failure instanceof IOException consumerFailure) {
                throw new UncheckedIOException("the image consumer failed: " + consumerFailure.getMessage(),
                        consumerFailure);
            }
            throw (RuntimeException) failure;
        }
        ImageFetchException recorded = latch.recorded();
        if (recorded != null && !content.finished()) {
            // The consumer swallowed a failed read and returned; the failure still stands.
            throw recorded;
        }
    }
}

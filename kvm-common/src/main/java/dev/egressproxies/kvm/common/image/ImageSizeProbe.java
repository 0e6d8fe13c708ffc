package dev.egressproxies.kvm.common.image;

import dev.egressproxies.api.Deadline;
import java.net.http.HttpClient;
import java.util.function.Supplier;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds out how large a published image file is without downloading it, for the quota precheck
 * before anything is written: a HEAD request, and a GET whose body is closed at once when the HEAD
 * answer cannot tell.
 *
 * <p>HEAD cannot tell when it is refused (405 or 501; 403 from a URL signed for GET only) or
 * answers 2xx without a Content-Length (some servers compute no length for HEAD); the GET's answer
 * is then the one classified, as {@link ImageFetcher} would. Any other HEAD answer is classified
 * as it is. The size is the published file's: a compressed image becomes larger once decompressed.
 *
 * <p>Thread-safe.
 */
public final class ImageSizeProbe {
    private static final Logger LOG = LoggerFactory.getLogger(ImageSizeProbe.class);
    private final Supplier<HttpClient> client;
    private final Duration idleLimit;

    /** Creates a probe that waits {@link ImageFetcher#DEFAULT_IDLE_LIMIT} at most for each answer's headers. */
    public ImageSizeProbe(Supplier<HttpClient> client) {
        this(client, ImageFetcher.DEFAULT_IDLE_LIMIT);
    }

    /**
     * Creates a probe.
     *
     * @param client    the HTTP client, asked for on the first request (a provider that downloads
     *                  nothing never builds one); its redirect policy decides which redirects are followed
     * @param idleLimit how long to wait for each answer's headers (within the caller's deadline); positive
     */
    public ImageSizeProbe(Supplier<HttpClient> client, Duration idleLimit) {
        this.client = Objects.requireNonNull(client, "client");
        this.idleLimit = ImageFetcher.requirePositive(idleLimit);
    }

    /**
     * The published file's length in bytes.
     *
     * @param deadline when the caller gives up; include the per-call budget in it
     * @throws ImageFetchException classified as for a fetch: 4xx PERMANENT, 5xx and 429 TRANSIENT, no
     *                             or zero Content-Length PERMANENT, an encoded response PERMANENT, no
     *                             answer within the idle limit TRANSIENT
     */
    public long publishedBytes(ImageSource source, Deadline deadline) {
        FetchFailures failures = FetchFailures.of(source.url());
        TransferClock clock = TransferClock.forProbe(deadline, idleLimit);
        LOG.debug("size of the image at {}: HEAD (idle limit {})", failures.url(), DurationText.of(idleLimit));
        try {
            HttpResponse<BodyStream> head = ImageRequests.send(client.get(), source.url(), "HEAD", clock, failures);
            head.body().close();
            if (!headCannotTell(head)) {
                return logged(failures, ResponseClassifier.publishedLength(head, failures));
            }
            LOG.debug("size of the image at {}: HEAD answered {} without a length, asking with a GET", failures.url(),
                    head.statusCode());
            HttpResponse<BodyStream> get = ImageRequests.send(client.get(), source.url(), "GET", clock, failures);
            // Only the headers matter: closing the body at once stops the download.
            get.body().close();
            return logged(failures, ResponseClassifier.publishedLength(get, failures));
        } catch (ImageFetchException failure) {
            LOG.debug("size of the image at {}: failed: {}", failures.url(), failure.getMessage());
            throw failure;
        }
    }

    private static long logged(FetchFailures failures, long length) {
        LOG.debug("size of the image at {}: {} bytes", failures.url(), length);
        return length;
    }

    private static boolean headCannotTell(HttpResponse<?> head) {
        int status = head.statusCode();
        boolean refused = status == 403 || status == 405 || status == 501;
        boolean lengthless = ResponseClassifier.isSuccess(head) && head.headers().firstValue("Content-Length").isEmpty();
        return refused || lengthless;
    }
}

package dev.egressproxies.kvm.common.image;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.spi.ProgressReporter;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Streams a published image over HTTP, decompressed and unpacked, into a consumer (a volume upload),
 * checking its length and sha256 on the way: no temporary files, memory flat in the image's size.
 */
public final class ImageFetcher {
    /** How long a server may stay silent unless configured: ample for a healthy one, short beside a create. */
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

    /** Creates a fetcher. */
    public ImageFetcher(Supplier<HttpClient> client, ProgressReporter progress, TransferBudget budget, Duration idleLimit) {
        this.client = Objects.requireNonNull(client, "client");
        this.progress = Objects.requireNonNull(progress, "progress");
        this.budget = Objects.requireNonNull(budget, "budget");
        if (Objects.requireNonNull(idleLimit, "idleLimit").isNegative() || idleLimit.isZero()) {
            throw new IllegalArgumentException("the image idle limit must be positive, not " + idleLimit);
        }
        this.idleLimit = idleLimit;
    }

    /**
     * Fetches the image and hands it to {@code consumer} on the calling thread; throws {@link ImageFetchException}
     * when the fetch fails, {@link IllegalStateException} when the consumer returned before the image's end.
     */
    public FetchResult fetch(ImageSource source, String description, Deadline deadline, ImageConsumer consumer) {
        FetchAttempt attempt = FetchAttempt.transfer(source.url(), deadline, budget, idleLimit);
        long started = System.nanoTime();
        LOG.debug("{}: GET from {} (idle limit {})", description, attempt.url(), FetchAttempt.text(idleLimit));
        try {
            HttpResponse<SourceStream> response = attempt.send(client.get(), "GET");
            // Closed in any case: also ends reads another thread may still make, and stops the watchdog.
            try (SourceStream body = response.body()) {
                long length = attempt.publishedLength(response);
                LOG.debug("{}: {} answered {}, {} bytes announced", description, attempt.url(), response.statusCode(),
                        length);
                FetchResult result = transfer(source, description, attempt, body, length, consumer);
                LOG.debug("{}: fetched {} bytes from {} ({} as image) in {} ms", description, result.publishedBytes(),
                        attempt.url(), result.decompressedBytes(), (System.nanoTime() - started) / 1_000_000);
                return result;
            }
        } catch (ImageFetchException failure) {
            LOG.debug("{}: fetch from {} failed after {} ms: {}", description, attempt.url(),
                    (System.nanoTime() - started) / 1_000_000, failure.getMessage());
            throw failure;
        }
    }

    /**
     * The published (possibly compressed) file's length, without downloading it: a HEAD request, or a GET
     * closed at once when HEAD cannot tell; failures are classified as for a fetch.
     */
    public long publishedBytes(ImageSource source, Deadline deadline) {
        FetchAttempt attempt = FetchAttempt.probe(source.url(), deadline, idleLimit);
        LOG.debug("size of the image at {}: HEAD (idle limit {})", attempt.url(), FetchAttempt.text(idleLimit));
        try {
            HttpResponse<SourceStream> answer = attempt.send(client.get(), "HEAD");
            answer.body().close();
            int status = answer.statusCode();
            boolean refused = status == 403 || status == 405 || status == 501;
            if (refused || status / 100 == 2 && answer.headers().firstValue("Content-Length").isEmpty()) {
                LOG.debug("size of the image at {}: HEAD answered {} without a length, asking with a GET",
                        attempt.url(), status);
                answer = attempt.send(client.get(), "GET");
                // Only the headers matter: closing the body at once stops the download.
                answer.body().close();
            }
            long length = attempt.publishedLength(answer);
            LOG.debug("size of the image at {}: {} bytes", attempt.url(), length);
            return length;
        } catch (ImageFetchException failure) {
            LOG.debug("size of the image at {}: failed: {}", attempt.url(), failure.getMessage());
            throw failure;
        }
    }

    private FetchResult transfer(ImageSource source, String description, FetchAttempt attempt, SourceStream body,
                                 long length, ImageConsumer consumer) {
        try (ProgressReporter.Progress shown = progress.begin(description, length)) {
            body.watch(attempt, length, shown);
            VerifyingStream published = new VerifyingStream(body, length, source.sha256(), attempt);
            UnpackedStream content = new UnpackedStream(source, published, attempt);
            try {
                consumer.accept(new ImageContent(content, content.length()));
            } catch (IOException | RuntimeException failure) {
                // The consumer failed because its reads did: the recorded failure is the cause.
                throwIfRecorded(attempt);
                throw failure instanceof IOException consumerFailure ? new UncheckedIOException(
                        "the image consumer failed: " + consumerFailure.getMessage(), consumerFailure)
                        : (RuntimeException) failure;
            }
            if (!content.finished()) {
                // A consumer that swallowed a failed read and returned: the failure still stands.
                throwIfRecorded(attempt);
                throw new IllegalStateException("the image consumer returned after reading " + content.count()
                        + " bytes of the image, before its end; it must read the whole image");
            }
            return new FetchResult(published.count(), published.sha256(), content.count());
        } catch (IOException opening) {
            throwIfRecorded(attempt);
            // Opening the stream layers turns every IOException into a recorded failure.
            throw new IllegalStateException("opening the image content failed unrecorded", opening);
        }
    }

    private static void throwIfRecorded(FetchAttempt attempt) {
        if (attempt.failure() != null) {
            throw attempt.failure();
        }
    }

    /** Where a fetch delivers the image, typically a volume upload: it reads the content to its end or length. */
    @FunctionalInterface
    public interface ImageConsumer {
        /** Writes the image somewhere; throws when the content or the consumer's own writing fails. */
        void accept(ImageContent content) throws IOException;
    }

    /** The disk image, decompressed and unpacked, and its length when known in advance (uncompressed, tar member). */
    public record ImageContent(InputStream stream, OptionalLong length) {
        /** Checks the parts. */
        public ImageContent {
            Objects.requireNonNull(stream, "stream");
            Objects.requireNonNull(length, "length");
        }
    }

    /** What a successful fetch delivered: the published file, checked, and the image made from it. */
    public record FetchResult(long publishedBytes, String sha256, long decompressedBytes) {
    }

    /**
     * The time one transfer may take, and how much of it is kept for the upload to end after the HTTP body:
     * a mirror that stalls then fails the upload through its reader, cleanly, not through its connection.
     */
    public record TransferBudget(Duration transfer, Duration uploadGrace) {
        /** Checks that the grace is shorter than the budget. */
        public TransferBudget {
            Objects.requireNonNull(transfer, "transfer");
            Objects.requireNonNull(uploadGrace, "uploadGrace");
            if (uploadGrace.isNegative() || uploadGrace.compareTo(transfer) >= 0) {
                throw new IllegalArgumentException("the upload grace of " + FetchAttempt.text(uploadGrace)
                        + " must be at least zero and shorter than the transfer budget of "
                        + FetchAttempt.text(transfer));
            }
        }

        /** A budget of {@code transfer} that keeps a tenth of it, at most 30 seconds, for the upload's end. */
        public static TransferBudget of(Duration transfer) {
            // libvirt finishes a stream in well under 30 seconds.
            Duration tenth = transfer.dividedBy(10);
            return new TransferBudget(transfer, tenth.compareTo(Duration.ofSeconds(30)) > 0 ? Duration.ofSeconds(30)
                    : tenth);
        }

        /** No budget of its own: only the caller's deadline (an unbounded one, a year) limits the transfer. */
        public static TransferBudget none() {
            return new TransferBudget(Duration.ofDays(365), Duration.ZERO);
        }

        /** How long the HTTP body may take: the budget less the grace. */
        public Duration bodyLimit() {
            return transfer.minus(uploadGrace);
        }
    }
}

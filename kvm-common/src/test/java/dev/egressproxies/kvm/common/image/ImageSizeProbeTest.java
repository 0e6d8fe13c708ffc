package dev.egressproxies.kvm.common.image;

import dev.egressproxies.kvm.common.image.ImageFetcher.TransferBudget;
import dev.egressproxies.api.spi.ProgressReporter;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.kvm.common.image.ImageFetchException.Reason;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The size probe of the quota precheck: HEAD, or a GET closed at once when HEAD cannot tell. */
class ImageSizeProbeTest {
    private static final long LARGE = 2L * 1024 * 1024 * 1024;
    private static final byte[] IMAGE = TestImages.disk(100_000, 4);

    private final ImageTestServer server = new ImageTestServer();
    private final ImageFetcher probe = new ImageFetcher(TestImages::followingClient, ProgressReporter.SILENT,
            TransferBudget.none());

    ImageSizeProbeTest() throws IOException {
    }

    @AfterEach
    void stopServer() {
        server.close();
    }

    @Test
    void headTellsTheSizeWithoutAGet() {
        server.serve("/disk.qcow2", IMAGE);

        assertThat(probe.publishedBytes(source("/disk.qcow2"), Deadline.after(Duration.ofSeconds(10))))
                .isEqualTo(IMAGE.length);
        assertThat(server.requests("HEAD", "/disk.qcow2")).isEqualTo(1);
        assertThat(server.requests("GET", "/disk.qcow2")).isZero();
    }

    @ParameterizedTest
    @ValueSource(ints = {405, 501, 403})
    void aRefusedHeadFallsBackToAGetWhoseBodyIsClosedAtOnce(int headStatus) {
        server.serveWithoutHead("/disk.qcow2", IMAGE, headStatus);

        assertThat(probe.publishedBytes(source("/disk.qcow2"), Deadline.after(Duration.ofSeconds(10))))
                .isEqualTo(IMAGE.length);
        assertThat(server.requests("GET", "/disk.qcow2")).isEqualTo(1);
    }

    @Test
    void theFallbackGetOfAHugeImageReturnsAtOnce() {
        server.answer("/huge.qcow2", exchange -> {
            if (exchange.getRequestMethod().equals("HEAD")) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            new ImageTestServer.Answer() {
                @Override
                public void respond(com.sun.net.httpserver.HttpExchange get) throws IOException {
                    get.sendResponseHeaders(200, LARGE);
                    new GeneratedBytes(1).writeTo(get.getResponseBody(), LARGE);
                }
            }.respond(exchange);
        });
        long started = System.nanoTime();

        long size = probe.publishedBytes(source("/huge.qcow2"), Deadline.after(Duration.ofSeconds(10)));

        assertThat(size).isEqualTo(LARGE);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(2000);
    }

    @Test
    void aLengthlessHeadFallsBackToAGet() {
        server.serveWithLengthlessHead("/disk.qcow2", IMAGE);

        assertThat(probe.publishedBytes(source("/disk.qcow2"), Deadline.after(Duration.ofSeconds(10))))
                .isEqualTo(IMAGE.length);
        assertThat(server.requests("GET", "/disk.qcow2")).isEqualTo(1);
    }

    @Test
    void aMissingImageIsPermanentFromTheHeadAlone() {
        ImageFetchException failure = catchThrowableOfType(ImageFetchException.class,
                () -> probe.publishedBytes(source("/missing.qcow2"), Deadline.after(Duration.ofSeconds(10))));

        assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(failure).hasMessageContaining("answered HTTP 404");
        assertThat(server.requests("GET", "/missing.qcow2")).isZero();
    }

    @Test
    void aFailingServerIsTransient() {
        server.status("/disk.qcow2", 503);

        ImageFetchException failure = catchThrowableOfType(ImageFetchException.class,
                () -> probe.publishedBytes(source("/disk.qcow2"), Deadline.after(Duration.ofSeconds(10))));

        assertThat(failure.kind()).isEqualTo(ErrorKind.TRANSIENT);
    }

    @Test
    void aFallbackGetWithoutLengthIsPermanent() {
        server.answer("/disk.qcow2", exchange -> {
            if (exchange.getRequestMethod().equals("HEAD")) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            exchange.sendResponseHeaders(200, 0);
            exchange.getResponseBody().write(IMAGE);
        });

        ImageFetchException failure = catchThrowableOfType(ImageFetchException.class,
                () -> probe.publishedBytes(source("/disk.qcow2"), Deadline.after(Duration.ofSeconds(10))));

        assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(failure).hasMessageContaining("sent no Content-Length");
    }

    @Test
    void aServerThatDoesNotAnswerEndsAtTheCallersDeadline() {
        server.serveNothing("/disk.qcow2");
        long started = System.nanoTime();

        ImageFetchException failure = catchThrowableOfType(ImageFetchException.class,
                () -> probe.publishedBytes(source("/disk.qcow2"), Deadline.after(Duration.ofMillis(500))));

        assertThat(failure.reason()).isEqualTo(Reason.DEADLINE);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(1500);
    }

    @Test
    void anUnansweredHeadEndsAtTheIdleLimitWithinALongDeadline() {
        server.serveNothing("/disk.qcow2");
        long started = System.nanoTime();

        ImageFetchException failure = catchThrowableOfType(ImageFetchException.class,
                () -> new ImageFetcher(TestImages::followingClient, ProgressReporter.SILENT, TransferBudget.none(),
                        Duration.ofSeconds(1))
                        .publishedBytes(source("/disk.qcow2"), Deadline.after(Duration.ofMinutes(30))));

        assertThat(failure.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(failure.reason()).isEqualTo(Reason.STALLED);
        assertThat(failure).hasMessageContaining("sent nothing for 1s (imageIdleTimeout) in answer to the HEAD request")
                .hasMessageNotContaining("longer deadline");
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(5_000);
    }

    private ImageSource source(String path) {
        return ImageSource.builder(server.url(path)).build();
    }
}

package dev.egressproxies.kvm.common.image;

import dev.egressproxies.kvm.common.image.ImageFetcher.TransferBudget;
import dev.egressproxies.kvm.common.image.ImageFetcher.FetchResult;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.spi.ProgressReporter;
import dev.egressproxies.kvm.common.image.ImageFetchException.Reason;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** How a fetch classifies what the server answers, before a byte reaches the consumer. */
class FetchClassificationTest {
    private static final byte[] IMAGE = TestImages.disk(200_000, 1);

    private final ImageTestServer server = new ImageTestServer();
    private final ImageFetcher fetcher = new ImageFetcher(TestImages::followingClient, ProgressReporter.SILENT,
            TransferBudget.of(Duration.ofSeconds(30)));
    private final Consumers.Collecting consumer = new Consumers.Collecting();

    FetchClassificationTest() throws IOException {
    }

    @AfterEach
    void stopServer() {
        server.close();
    }

    @ParameterizedTest
    @ValueSource(ints = {400, 403, 404, 410, 451})
    void aClientErrorIsPermanent(int status) {
        server.status("/disk.qcow2", status);

        ImageFetchException failure = fetchFailure("/disk.qcow2");

        assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(failure.reason()).isEqualTo(Reason.UNUSABLE_RESPONSE);
        assertThat(failure).hasMessageContaining("answered HTTP " + status).hasMessageContaining("fix the image URL");
        assertThat(consumer.content()).isNull();
    }

    @ParameterizedTest
    @ValueSource(ints = {429, 500, 502, 503})
    void aServerErrorOrTooManyRequestsIsTransient(int status) {
        server.status("/disk.qcow2", status);

        ImageFetchException failure = fetchFailure("/disk.qcow2");

        assertThat(failure.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(failure).hasMessageContaining("answered HTTP " + status).hasMessageContaining("retry later");
    }

    @Test
    void aResponseWithoutContentLengthIsPermanent() {
        server.serveChunked("/disk.qcow2", IMAGE);

        ImageFetchException failure = fetchFailure("/disk.qcow2");

        assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(failure).hasMessageContaining("sent no Content-Length")
                .hasMessageContaining("the server must send the image's length");
    }

    @Test
    void anEmptyResponseIsPermanent() {
        server.serveEmpty("/disk.qcow2");

        ImageFetchException failure = fetchFailure("/disk.qcow2");

        assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(failure).hasMessageContaining("Content-Length 0");
    }

    @Test
    void anEncodedResponseIsPermanent() {
        server.serveEncoded("/disk.qcow2", IMAGE);

        ImageFetchException failure = fetchFailure("/disk.qcow2");

        assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(failure).hasMessageContaining("Content-Encoding gzip").hasMessageContaining("unencoded");
    }

    @Test
    void aRedirectIsFollowedByTheClient() {
        server.serve("/mirror/disk.qcow2", IMAGE).redirect("/disk.qcow2", server.url("/mirror/disk.qcow2"));

        FetchResult result = fetcher.fetch(source("/disk.qcow2"), "test", Deadline.after(Duration.ofSeconds(10)),
                consumer);

        assertThat(consumer.bytes()).isEqualTo(IMAGE);
        assertThat(result.publishedBytes()).isEqualTo(IMAGE.length);
    }

    @Test
    void aRedirectTheClientDoesNotFollowIsPermanentAndNamesOnlyTheTargetHost() {
        server.redirect("/disk.qcow2", "https://mirror.example.org:8443/secret-path/disk.qcow2?token=abc");
        ImageFetcher strict = new ImageFetcher(TestImages::nonFollowingClient, ProgressReporter.SILENT,
                TransferBudget.of(Duration.ofSeconds(30)));

        ImageFetchException failure = catchThrowableOfType(ImageFetchException.class, () -> strict.fetch(
                source("/disk.qcow2"), "test", Deadline.after(Duration.ofSeconds(10)), consumer));

        assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(failure).hasMessageContaining("HTTP 302")
                .hasMessageContaining("to https://mirror.example.org:8443")
                .hasMessageNotContaining("secret-path").hasMessageNotContaining("token");
    }

    @Test
    void anUnreachableServerIsTransient() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        ImageSource source = ImageSource.builder("http://127.0.0.1:" + closedPort + "/disk.qcow2").build();

        ImageFetchException failure = catchThrowableOfType(ImageFetchException.class,
                () -> fetcher.fetch(source, "test", Deadline.after(Duration.ofSeconds(10)), consumer));

        assertThat(failure.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(failure.reason()).isEqualTo(Reason.UNREACHABLE);
        assertThat(failure).hasMessageContaining("could not fetch the image from http://127.0.0.1:" + closedPort)
                .hasMessageContaining("ConnectException");
    }

    @Test
    void identityEncodingIsAskedFor() {
        server.answer("/disk.qcow2", exchange -> {
            String asked = String.valueOf(exchange.getRequestHeaders().getFirst("Accept-Encoding"));
            byte[] body = asked.getBytes();
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
        });

        fetcher.fetch(source("/disk.qcow2"), "test", Deadline.after(Duration.ofSeconds(10)), consumer);

        assertThat(new String(consumer.bytes())).isEqualTo("identity");
    }

    private ImageFetchException fetchFailure(String path) {
        return catchThrowableOfType(ImageFetchException.class,
                () -> fetcher.fetch(source(path), "test", Deadline.after(Duration.ofSeconds(10)), consumer));
    }

    private ImageSource source(String path) {
        return ImageSource.builder(server.url(path)).build();
    }
}

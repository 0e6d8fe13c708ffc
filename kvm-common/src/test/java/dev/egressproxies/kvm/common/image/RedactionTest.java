package dev.egressproxies.kvm.common.image;

import dev.egressproxies.kvm.common.image.ImageFetcher.TransferBudget;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.spi.ProgressReporter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * No failure of the pipeline shows the URL's user information, path or query: not in a message,
 * not in a cause's, not in a printed stack trace. Every way to fail is tried with a URL full of
 * recognisable secrets.
 */
class RedactionTest {
    private static final String USER = "alice-the-user";
    private static final String PASSWORD = "hunter2-password";
    private static final String DIRECTORY = "private-directory";
    private static final String FILE = "confidential-name";
    private static final String TOKEN = "signed-token-value";
    private static final List<String> SECRETS = List.of(USER, PASSWORD, DIRECTORY, FILE, TOKEN);
    private static final byte[] IMAGE = TestImages.disk(300_000, 6);
    private static final byte[] XZ_IMAGE = TestImages.compress(Compression.XZ, IMAGE);

    private static final ImageTestServer SERVER = startServer();

    @AfterAll
    static void stopServer() {
        SERVER.close();
    }

    static Stream<Arguments> failures() {
        return Stream.of(
                failure("404", path -> SERVER.status(path, 404), ".qcow2", Function.identity()),
                failure("503", path -> SERVER.status(path, 503), ".qcow2", Function.identity()),
                failure("chunked", path -> SERVER.serveChunked(path, IMAGE), ".qcow2", Function.identity()),
                failure("empty", SERVER::serveEmpty, ".qcow2", Function.identity()),
                failure("encoded", path -> SERVER.serveEncoded(path, IMAGE), ".qcow2", Function.identity()),
                failure("short body", path -> SERVER.serveCutOff(path, IMAGE, 1000), ".qcow2", Function.identity()),
                failure("stalled body", path -> SERVER.serveStalled(path, IMAGE, 1000), ".qcow2", Function.identity()),
                failure("digest", path -> SERVER.serve(path, IMAGE), ".qcow2",
                        builder -> builder.sha256("0".repeat(64))),
                failure("corrupt xz", path -> SERVER.serve(path, IMAGE), ".qcow2.xz", Function.identity()),
                failure("cut xz", path -> SERVER.serveCutOff(path, XZ_IMAGE, XZ_IMAGE.length / 2), ".qcow2.xz",
                        Function.identity()),
                failure("missing member", path -> SERVER.serve(path, TestImages.tar(TestImages.files(
                        "other.raw", IMAGE))), ".tar", builder -> builder.archiveMember("disk.raw")),
                failure("redirect", path -> SERVER.redirect(path, "http://127.0.0.1:1/" + DIRECTORY + "/x?t="
                        + TOKEN), ".qcow2", Function.identity()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("failures")
    void aFetchFailureShowsNoSecret(String name, Arranged arranged) {
        String path = "/" + DIRECTORY + "/" + name.replace(' ', '-') + "-" + FILE + arranged.suffix();
        arranged.arrange().accept(path);
        ImageSource source = arranged.declare().apply(ImageSource.builder(secretUrl(SERVER.port(), path))).build();
        ImageFetcher fetcher = new ImageFetcher(TestImages::nonFollowingClient, ProgressReporter.SILENT,
                new TransferBudget(Duration.ofMillis(1500), Duration.ofMillis(500)));

        Throwable failure = catchThrowable(() -> fetcher.fetch(source, "test", Deadline.after(Duration.ofSeconds(10)),
                new Consumers.UploadLike()));

        assertThat(failure).isInstanceOf(ImageFetchException.class);
        assertShowsNoSecret(failure);
        assertThat(SERVER.authorizationHeaders()).isEmpty();
    }

    @Test
    void anUnreachableServerShowsNoSecret() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        ImageSource source = ImageSource.builder(secretUrl(closedPort, "/" + DIRECTORY + "/" + FILE + ".qcow2")).build();

        Throwable failure = catchThrowable(() -> new ImageFetcher(TestImages::followingClient, ProgressReporter.SILENT,
                TransferBudget.of(Duration.ofSeconds(10))).fetch(source, "test", Deadline.after(Duration.ofSeconds(10)),
                new Consumers.UploadLike()));

        assertThat(failure).isInstanceOf(ImageFetchException.class);
        assertShowsNoSecret(failure);
    }

    @Test
    void aProbeFailureShowsNoSecret() {
        String path = "/" + DIRECTORY + "/probe-" + FILE + ".qcow2";
        SERVER.answer(path, exchange -> {
            exchange.sendResponseHeaders(exchange.getRequestMethod().equals("HEAD") ? 405 : 410, -1);
        });
        ImageSource source = ImageSource.builder(secretUrl(SERVER.port(), path)).build();

        Throwable failure = catchThrowable(() -> new ImageFetcher(TestImages::followingClient, ProgressReporter.SILENT,
                TransferBudget.none()).publishedBytes(source, Deadline.after(Duration.ofSeconds(10))));

        assertThat(failure).isInstanceOf(ImageFetchException.class).hasMessageContaining("HTTP 410");
        assertShowsNoSecret(failure);
    }

    @Test
    void aForeignCausesMessageIsScrubbedToo() {
        java.net.URI url = java.net.URI.create(secretUrl(1, "/" + DIRECTORY + "/" + FILE));
        FetchAttempt attempt = FetchAttempt.probe(url, Deadline.none(), Duration.ofSeconds(1));
        IOException foreign = new IOException("failed to open " + url, new IOException("at /" + DIRECTORY + "/"
                + FILE + "?t=" + TOKEN + " as " + USER));

        ImageFetchException failure = attempt.transientFailure(ImageFetchException.Reason.UNREACHABLE,
                "could not fetch (" + attempt.url().describe(foreign) + ")", foreign);

        assertShowsNoSecret(failure);
        assertThat(failure.getCause()).hasMessageContaining("java.io.IOException: failed to open");
        assertThat(failure.getCause().getStackTrace()).isEqualTo(foreign.getStackTrace());
    }

    private static void assertShowsNoSecret(Throwable failure) {
        StringWriter printed = new StringWriter();
        failure.printStackTrace(new PrintWriter(printed));
        List<String> texts = new ArrayList<>();
        texts.add(printed.toString());
        for (Throwable link = failure; link != null; link = link.getCause()) {
            texts.add(String.valueOf(link.getMessage()));
            texts.add(link.toString());
        }
        for (String text : texts) {
            for (String secret : SECRETS) {
                assertThat(text).as("a failure's text").doesNotContain(secret);
            }
        }
    }

    private static String secretUrl(int port, String path) {
        return "http://" + USER + ":" + PASSWORD + "@127.0.0.1:" + port + path + "?token=" + TOKEN + "&user=" + USER;
    }

    private static Arguments failure(String name, java.util.function.Consumer<String> arrange, String suffix,
                                     Function<ImageSource.Builder, ImageSource.Builder> declare) {
        return Arguments.of(name, new Arranged(arrange, suffix, declare));
    }

    /** How one failure is set up: the server's answer, the file suffix, what the source declares. */
    record Arranged(java.util.function.Consumer<String> arrange, String suffix,
                    Function<ImageSource.Builder, ImageSource.Builder> declare) {
        @Override
        public String toString() {
            return suffix;
        }
    }

    private static ImageTestServer startServer() {
        try {
            return new ImageTestServer();
        } catch (IOException failed) {
            throw new IllegalStateException("the loopback image server did not start", failed);
        }
    }
}

package dev.egressproxies.kvm;

import static dev.egressproxies.kvm.KvmFixture.IMAGE_BYTES;
import static dev.egressproxies.kvm.common.testing.Requests.catchProviderException;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.PreflightCheck;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.testing.ImageServer;
import dev.egressproxies.kvm.common.testing.Requests;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Image URLs in the errors of failed downloads: whatever fails, no message anywhere in the error's
 * chain (causes and suppressed failures included) shows the URL's user information, path or
 * query, which carry credentials, signed tokens and names; only scheme, host and port.
 */
class ImageUrlRedactionTest {
    private static final String PATH = "/path-secret/debian-12.qcow2";
    /** Every part of the URL that must not appear holds "secret"; no message of the pipeline does. */
    private static final String SECRET = "secret";

    private final KvmFixture fixture = KvmFixture.oneHost();
    private final CountDownLatch release = new CountDownLatch(1);
    private final KvmProvider provider = fixture.providerWithImageAt(
            "http://user-secret:password-secret@" + hostAndPort(fixture.server) + PATH + "?token=query-secret");

    @AfterEach
    void close() {
        release.countDown();
        fixture.close();
    }

    /** A way the server makes a download fail. */
    enum Fault {
        NOT_FOUND(server -> server.status(PATH, 404)),
        UNAUTHORIZED(server -> server.status(PATH, 401)),
        SERVER_ERROR(server -> server.status(PATH, 500)),
        TOO_MANY_REQUESTS(server -> server.status(PATH, 429)),
        UNFOLLOWED_REDIRECT(server -> server.status(PATH, 302, "Location",
                "https://mirror.example/other-secret/disk.qcow2?signature=location-secret")),
        NO_CONTENT_LENGTH(server -> server.serveWithoutLength(PATH, IMAGE_BYTES)),
        EMPTY(server -> server.serve(PATH, new byte[0])),
        ENCODED(server -> server.serveEncoded(PATH, IMAGE_BYTES)),
        BODY_CUT_OFF(server -> server.serveCutOff(PATH, IMAGE_BYTES, 1000));

        private final Consumer<ImageServer> setUp;

        Fault(Consumer<ImageServer> setUp) {
            this.setUp = setUp;
        }
    }

    @ParameterizedTest
    @EnumSource(Fault.class)
    void aFailedDownloadShowsTheUrlAsSchemeHostAndPortOnly(Fault fault) {
        fault.setUp.accept(fixture.server);

        ProviderException error = catchProviderException(() -> provider.create(KvmFixture.request("proxy-1"),
                Requests.deadline()));

        assertThat(error.getMessage()).contains("http://" + hostAndPort(fixture.server));
        assertNoSecretIn(error);
    }

    @Test
    void aDownloadCutOffByTheDeadlineShowsNoPartOfTheUrl() {
        fixture.server.serveStalled(PATH, IMAGE_BYTES, 4096, release);

        ProviderException error = catchProviderException(() -> provider.create(KvmFixture.request("proxy-1"),
                Deadline.after(Duration.ofMillis(300))));

        assertThat(error.getMessage()).contains("deadline exceeded while downloading image debian-12");
        assertNoSecretIn(error);
    }

    @Test
    void anUnreachableServerShowsNoPartOfTheUrl() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        KvmProvider unreachable = fixture.providerWithImageAt(
                "http://user-secret:password-secret@127.0.0.1:" + closedPort + PATH + "?token=query-secret");

        ProviderException error = catchProviderException(() -> unreachable.create(KvmFixture.request("proxy-1"),
                Requests.deadline()));

        assertThat(error.getMessage()).contains("http://127.0.0.1:" + closedPort);
        assertNoSecretIn(error);
    }

    @Test
    void preflightChecksShowNoPartOfTheUrl() {
        fixture.server.status(PATH, 404);

        PreflightCheck image = provider.preflight(Requests.deadline()).stream()
                .filter(check -> check.name().startsWith("image ")).findFirst().orElseThrow();

        assertThat(image.passed()).isFalse();
        assertThat(image.name()).isEqualTo("image debian-12 at http://" + hostAndPort(fixture.server));
        assertThat(image.detail()).contains("answered HTTP 404").doesNotContain(SECRET);
    }

    private static void assertNoSecretIn(Throwable error) {
        for (Throwable each : chain(error)) {
            assertThat(String.valueOf(each)).as("%s in the chain of %s", each.getClass().getSimpleName(), error)
                    .doesNotContain(SECRET);
        }
    }

    /** {@code error}, its causes and its suppressed failures, each of theirs too. */
    private static List<Throwable> chain(Throwable error) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        List<Throwable> pending = new ArrayList<>(List.of(error));
        List<Throwable> all = new ArrayList<>();
        while (!pending.isEmpty()) {
            Throwable next = pending.remove(pending.size() - 1);
            if (next == null || !seen.add(next)) {
                continue;
            }
            all.add(next);
            pending.add(next.getCause());
            pending.addAll(List.of(next.getSuppressed()));
        }
        return all;
    }

    private static String hostAndPort(ImageServer server) {
        String url = server.url("");
        return url.substring("http://".length());
    }
}

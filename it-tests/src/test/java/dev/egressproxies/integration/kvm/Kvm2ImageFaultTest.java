package dev.egressproxies.integration.kvm;

import static dev.egressproxies.kvm.common.testing.Requests.catchProviderException;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.testing.ImageServer;
import dev.egressproxies.kvm.common.testing.TestBytes;
import dev.egressproxies.kvm2.Kvm2Provider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.function.BiConsumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The {@code kvm2} backend's image fetch against a misbehaving HTTP server, on the real stack: each
 * answer is classified as the contract says (4xx PERMANENT, 5xx and 429 TRANSIENT, a missing or zero
 * Content-Length PERMANENT, a short or stalled body TRANSIENT, a digest mismatch PERMANENT), the
 * error names the image by its catalogue key and the server's host only, and the pool holds no base,
 * marker, overlay or seed and libvirtd no domain of the create afterwards. A server that refuses
 * HEAD still serves: the size probe falls back to a GET closed at once. The matrix is printed
 * ({@code [kvm2 fault] ...}).
 */
@Tag("integration")
@ExtendWith(NoKvmLeftovers.class)
class Kvm2ImageFaultTest {
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(60);
    /** The catalogue key of the faulty image. */
    private static final String KEY = "faulty";
    /** Where the image is served; the path and query are secrets no message may show. */
    private static final String PATH = "/mirror-path/disk.qcow2";
    private static final String QUERY = "?token=tok3n";
    private static final String USER_INFORMATION = "operator:pa55word";
    private static final List<String> URL_SECRETS =
            List.of("mirror-path", "disk.qcow2", "tok3n", "token", "operator", "pa55word");
    /** Short enough that a stalled body ends the fetch quickly; long enough for a small image. */
    private static final String STALL_TRANSFER_BUDGET = "3s";

    @TempDir
    Path temporary;

    private final CountDownLatch release = new CountDownLatch(1);
    private Kvm2StackEntry entry;

    @AfterEach
    void removeWhatTheTestMade() {
        release.countDown();
        if (entry != null) {
            entry.close();
        }
    }

    /**
     * One answer of the server.
     *
     * @param name        what the case is called
     * @param answer      arranges the server's answer to the image's path, given the image's bytes
     * @param pinned      whether the catalogue pins the image's real sha256 (else a wrong one)
     * @param gets        the GETs the server receives: none when the HEAD answer fails the size probe,
     *                    one when the probe falls back to a GET or when the fetch (which creates the
     *                    base volume before it reads the body) is reached
     * @param kind        the kind the create must fail with
     * @param detailHints what the error's detail must say
     */
    record Fault(String name, BiConsumer<ImageServer, byte[]> answer, boolean pinned, int gets, ErrorKind kind,
                 List<String> detailHints) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Fault> faults() {
        return Stream.of(
                status(404, 0, ErrorKind.PERMANENT, "fix the image URL"),
                // A HEAD refused with 403 may be a URL signed for GET only: the probe asks with a GET.
                status(403, 1, ErrorKind.PERMANENT, "fix the image URL"),
                status(410, 0, ErrorKind.PERMANENT, "fix the image URL"),
                status(429, 0, ErrorKind.TRANSIENT, "retry later"),
                status(500, 0, ErrorKind.TRANSIENT, "retry later"),
                // The HEAD answer has no length either, so the probe asks with a GET.
                new Fault("no Content-Length (chunked)", (server, image) -> server.serveWithoutLength(PATH, image),
                        true, 1, ErrorKind.PERMANENT, List.of("no Content-Length")),
                new Fault("Content-Length 0", (server, image) -> server.serve(PATH, new byte[0]), true, 0,
                        ErrorKind.PERMANENT, List.of("empty image", "Content-Length 0")),
                new Fault("short body", (server, image) -> server.serveCutOffAfter(PATH, image, image.length / 2,
                        Duration.ofMillis(300)), true,
                        1, ErrorKind.TRANSIENT, List.of("of the image", "retry")),
                new Fault("wrong bytes", (server, image) -> server.serve(PATH, image), false, 1, ErrorKind.PERMANENT,
                        List.of("sha256", "not the configured")));
    }

    private static Fault status(int status, int gets, ErrorKind kind, String hint) {
        return new Fault("HTTP " + status, (server, image) -> server.status(PATH, status), true, gets, kind,
                List.of("answered HTTP " + status, hint));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("faults")
    void aFaultyAnswerIsClassifiedNamesTheImageAndLeavesNothing(Fault fault) {
        entry = Kvm2StackEntry.create("http", temporary);
        byte[] image = entry.stackImage();
        fault.answer().accept(entry.images(), image);
        String sha256 = fault.pinned() ? TestBytes.sha256(image) : TestBytes.sha256(new byte[] {1});
        Kvm2Provider kvm2 = entry.provider(entry.config().catalogueImage(KEY, catalogueImage(sha256)));

        ProviderException error = createFails(kvm2);

        assertFailureAndNothingLeft(fault.name(), error, fault.kind(), fault.detailHints());
        assertThat(entry.images().gets(PATH)).as("GETs of the image").isEqualTo(fault.gets());
    }

    @Test
    void aBodyThatStallsLongerThanTheTransferBudgetIsTransientAndLeavesNothing() {
        entry = Kvm2StackEntry.create("stall", temporary);
        byte[] image = entry.stackImage();
        entry.images().serveStalled(PATH, image, 64 * 1024, release);
        Kvm2Provider kvm2 = entry.provider(entry.config().catalogueImage(KEY, catalogueImage(TestBytes.sha256(image)))
                .setting("transferBudget", STALL_TRANSFER_BUDGET));

        ProviderException error = createFails(kvm2);

        assertFailureAndNothingLeft("stall mid-body", error, ErrorKind.TRANSIENT,
                List.of("did not finish within the transfer budget of 3s", "of " + image.length + " bytes arrived"));
        assertThat(entry.images().gets(PATH)).as("GETs of the stalled image").isEqualTo(1);
    }

    @Test
    void aServerThatRefusesHeadIsProbedWithAGetAndTheCreateSucceeds() {
        entry = Kvm2StackEntry.create("nohead", temporary);
        byte[] image = entry.stackImage();
        entry.images().serveWithoutHead(PATH, image);
        Kvm2Provider kvm2 = entry.provider(entry.config().catalogueImage(KEY, catalogueImage(TestBytes.sha256(image))));
        String name = entry.instance("vm");

        String id = kvm2.create(entry.request(name, KEY), Deadline.after(CALL_TIMEOUT));
        Instance instance = kvm2.get(id, Deadline.after(CALL_TIMEOUT));

        report("405 to HEAD", "created " + id + " (" + instance.state() + "); HEADs " + entry.images().heads(PATH)
                + ", GETs " + entry.images().gets(PATH));
        assertThat(instance.name()).isEqualTo(name);
        assertThat(entry.images().heads(PATH)).as("HEADs").isEqualTo(1);
        assertThat(entry.images().gets(PATH)).as("GETs: the probe's, closed at once, and the fetch's").isEqualTo(2);
        assertThat(entry.volumes()).as("volumes of the entry").contains(entry.baseVolume(KEY, imageUrl()), entry.markerVolume(KEY, imageUrl()));
        kvm2.delete(id, Deadline.after(CALL_TIMEOUT));
        assertThat(entry.domains()).as("domains after the delete").isEmpty();
        assertThat(entry.volumes()).as("volumes after the delete: the cached base and its marker")
                .containsExactlyInAnyOrder(entry.baseVolume(KEY, imageUrl()), entry.markerVolume(KEY, imageUrl()));
    }

    private ProviderException createFails(Kvm2Provider kvm2) {
        return catchProviderException(() -> kvm2.create(entry.request(entry.instance("vm"), KEY),
                Deadline.after(CALL_TIMEOUT)));
    }

    private void assertFailureAndNothingLeft(String name, ProviderException error, ErrorKind kind, List<String> hints) {
        report(name, error.kind() + ": " + error.getMessage());
        assertThat(error.kind()).as("kind of: %s", error.getMessage()).isEqualTo(kind);
        assertThat(error.operation()).isEqualTo(Operation.CREATE);
        assertThat(error.detail()).as("the error names the image and the server")
                .startsWith("image '" + KEY + "': ").contains(entry.images().url(""));
        assertThat(error.detail()).as("what the error says").contains(hints);
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            assertThat(cause.toString()).as("an error or cause").doesNotContain(URL_SECRETS);
        }
        assertThat(entry.domains()).as("domains of the failed create").isEmpty();
        assertThat(entry.volumes()).as("base, marker, overlay and seed of the failed create").isEmpty();
    }

    private String catalogueImage(String sha256) {
        return "{url: " + KvmTestConfig.quoted(imageUrl()) + ", sha256: " + sha256 + ", firmware: bios}";
    }

    private String imageUrl() {
        return entry.urlWithUserInformation(USER_INFORMATION, PATH + QUERY);
    }

    private static void report(String name, String outcome) {
        System.out.println("[kvm2 fault] " + name + " -> " + outcome);
    }
}

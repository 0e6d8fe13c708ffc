package dev.egressproxies.kvm.common.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.kvm.common.image.ImageFetchException.Reason;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.Arrays;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The checks on the published bytes where no HTTP server can produce the case: a body longer than
 * its Content-Length (the JDK client stops at the announced length).
 */
class VerifyingStreamTest {
    private static final byte[] DATA = TestImages.disk(100_000, 5);

    private final FetchAttempt attempt = FetchAttempt.probe(URI.create("https://images.example.org/disk.qcow2"),
            Deadline.none(), Duration.ofSeconds(30));

    @Test
    void moreBytesThanAnnouncedArePermanent() {
        VerifyingStream published = published(new ByteArrayInputStream(DATA), DATA.length - 10, Optional.empty());

        IOException failure = catchThrowableOfType(IOException.class, () -> published.readAllBytes());

        assertThat(recorded(failure).kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(recorded(failure).reason()).isEqualTo(Reason.BODY_BROKEN);
        assertThat(failure).hasMessageContaining("more bytes").hasMessageContaining("than the " + (DATA.length - 10));
    }

    @Test
    void exactlyTheAnnouncedBytesAreVerifiedInTheReadThatBringsTheLast() throws IOException {
        VerifyingStream published = published(new ByteArrayInputStream(DATA), DATA.length,
                Optional.of(TestImages.sha256(DATA)));

        byte[] read = published.readNBytes(DATA.length);

        assertThat(read).isEqualTo(DATA);
        assertThat(published.verified()).isTrue();
        assertThat(published.sha256()).isEqualTo(TestImages.sha256(DATA));
        assertThat(published.read()).isEqualTo(-1);
    }

    @Test
    void aBodyThatEndsEarlyIsTransient() {
        VerifyingStream published = published(new ByteArrayInputStream(Arrays.copyOf(DATA, 1000)), DATA.length,
                Optional.empty());

        IOException failure = catchThrowableOfType(IOException.class, () -> published.readAllBytes());

        assertThat(recorded(failure).kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(failure).hasMessageContaining("the server sent 1000 of " + DATA.length + " bytes");
    }

    @Test
    void theFirstFailureIsTheOneReported() {
        VerifyingStream published = published(new ByteArrayInputStream(DATA), DATA.length, Optional.empty());
        attempt.fail(attempt.transientFailure(Reason.DEADLINE, "first", null));

        IOException failure = catchThrowableOfType(IOException.class, () -> published.read(new byte[10]));

        assertThat(failure).hasMessage("first");
    }

    /** The attempt's recorded failure, which the IOException must carry as its cause. */
    private ImageFetchException recorded(IOException failure) {
        assertThat(failure.getCause()).isSameAs(attempt.failure());
        return attempt.failure();
    }

    private VerifyingStream published(InputStream body, long length, Optional<String> sha256) {
        try {
            return new VerifyingStream(body, length, sha256, attempt);
        } catch (IOException impossible) {
            throw new UncheckedIOException(impossible);
        }
    }
}

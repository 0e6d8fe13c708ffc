package dev.egressproxies.kvm.common.image;

import dev.egressproxies.kvm.common.image.ImageFetcher.TransferBudget;
import dev.egressproxies.kvm.common.image.ImageFetcher.FetchResult;
import dev.egressproxies.kvm.common.image.ImageFetcher.ImageConsumer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.spi.ProgressReporter;
import dev.egressproxies.kvm.common.image.ImageFetchException.Reason;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** What happens while the body streams: length and digest checks, time limits, interruption, progress. */
class FetchBodyTest {
    private static final byte[] IMAGE = TestImages.disk(3 * 1024 * 1024 + 17, 2);
    private static final Duration GENEROUS = Duration.ofSeconds(30);

    private final ImageTestServer server = new ImageTestServer();

    FetchBodyTest() throws IOException {
    }

    @AfterEach
    void stopServer() {
        server.close();
    }

    @Nested
    class Checks {
        @Test
        void aCompleteBodyIsDeliveredWithItsKnownLengthAndDigest() {
            server.serve("/disk.qcow2", IMAGE);
            Consumers.Collecting consumer = new Consumers.Collecting();

            FetchResult result = fetcher(GENEROUS).fetch(source("/disk.qcow2").sha256(TestImages.sha256(IMAGE)).build(),
                    "test", Deadline.after(GENEROUS), consumer);

            assertThat(consumer.bytes()).isEqualTo(IMAGE);
            assertThat(consumer.content().length()).isEqualTo(OptionalLong.of(IMAGE.length));
            assertThat(result).isEqualTo(new FetchResult(IMAGE.length, TestImages.sha256(IMAGE), IMAGE.length));
        }

        @Test
        void theDigestIsReportedWhenNoneIsPinned() {
            server.serve("/disk.qcow2", IMAGE);

            FetchResult result = fetcher(GENEROUS).fetch(source("/disk.qcow2").build(), "test", Deadline.after(GENEROUS),
                    new Consumers.UploadLike());

            assertThat(result.sha256()).isEqualTo(TestImages.sha256(IMAGE));
        }

        @Test
        void aShortBodyIsTransientAndSaysHowMuchArrived() {
            server.serveCutOff("/disk.qcow2", IMAGE, 1_000_000);
            Consumers.UploadLike consumer = new Consumers.UploadLike();

            ImageFetchException failure = fetchFailure(fetcher(GENEROUS), source("/disk.qcow2").build(), consumer);

            assertThat(failure.kind()).isEqualTo(ErrorKind.TRANSIENT);
            assertThat(failure.reason()).isEqualTo(Reason.BODY_BROKEN);
            assertThat(failure).hasMessageContaining("the server sent 1000000 of " + IMAGE.length + " bytes");
            assertThat(consumer.received()).isLessThan(IMAGE.length);
        }

        @Test
        void aDigestMismatchIsPermanentAndTheConsumerNeverGetsTheLastByte() {
            byte[] tampered = IMAGE.clone();
            tampered[tampered.length - 1] ^= 1;
            server.serve("/disk.qcow2", tampered);
            Consumers.UploadLike consumer = new Consumers.UploadLike();

            ImageFetchException failure = fetchFailure(fetcher(GENEROUS),
                    source("/disk.qcow2").sha256(TestImages.sha256(IMAGE)).build(), consumer);

            assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
            assertThat(failure.reason()).isEqualTo(Reason.DIGEST_MISMATCH);
            assertThat(failure).hasMessageContaining("has sha256 " + TestImages.sha256(tampered))
                    .hasMessageContaining("not the configured " + TestImages.sha256(IMAGE))
                    .hasMessageContaining("configure its new sha256")
                    .hasMessageContaining("fix the file on the server");
            // The read that brought the last bytes failed, so an upload of the known length never completes.
            assertThat(consumer.received()).isLessThan(IMAGE.length);
        }

        @Test
        void aConsumerThatStopsEarlyIsAnError() {
            server.serve("/disk.qcow2", IMAGE);

            Throwable failure = catchThrowableOfType(IllegalStateException.class, () -> fetcher(GENEROUS).fetch(
                    source("/disk.qcow2").build(), "test", Deadline.after(GENEROUS),
                    content -> content.stream().readNBytes(100)));

            assertThat(failure).hasMessageContaining("returned after reading 100 bytes");
        }

        @Test
        void aConsumersOwnFailureIsRethrownAsItIs() {
            server.serve("/disk.qcow2", IMAGE);
            IllegalStateException own = new IllegalStateException("the volume is gone");

            Throwable failure = catchThrowableOfType(IllegalStateException.class, () -> fetcher(GENEROUS).fetch(
                    source("/disk.qcow2").build(), "test", Deadline.after(GENEROUS), content -> {
                        content.stream().readNBytes(1000);
                        throw own;
                    }));

            assertThat(failure).isSameAs(own);
        }

        @Test
        void aConsumerThatSwallowsAFailedReadStillFails() {
            server.serveCutOff("/disk.qcow2", IMAGE, 500_000);

            ImageFetchException failure = fetchFailure(fetcher(GENEROUS), source("/disk.qcow2").build(), content -> {
                try {
                    content.stream().readAllBytes();
                } catch (IOException swallowed) {
                    // A careless consumer.
                }
            });

            assertThat(failure.reason()).isEqualTo(Reason.BODY_BROKEN);
        }
    }

    @Nested
    class TimeLimits {
        @Test
        void aBodyThatStallsEndsAtTheTransferBudget() {
            server.serveStalled("/disk.qcow2", IMAGE, 100_000);
            TransferBudget budget = new TransferBudget(Duration.ofMillis(1500), Duration.ofMillis(500));
            long started = System.nanoTime();

            ImageFetchException failure = fetchFailure(new ImageFetcher(TestImages::followingClient,
                    ProgressReporter.SILENT, budget), source("/disk.qcow2").build(), new Consumers.UploadLike());

            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertThat(failure.kind()).isEqualTo(ErrorKind.TRANSIENT);
            assertThat(failure.reason()).isEqualTo(Reason.TRANSFER_BUDGET);
            assertThat(failure).hasMessageContaining("did not finish within the transfer budget of 1s500ms")
                    .hasMessageContaining("after 100000 of " + IMAGE.length + " bytes arrived");
            // The body's share of the budget is one second.
            assertThat(tookMillis).isBetween(900L, 1900L);
        }

        @Test
        void aServerThatNeverAnswersEndsAtTheTransferBudget() {
            server.serveNothing("/disk.qcow2");
            TransferBudget budget = new TransferBudget(Duration.ofMillis(800), Duration.ofMillis(300));

            ImageFetchException failure = fetchFailure(new ImageFetcher(TestImages::followingClient,
                    ProgressReporter.SILENT, budget), source("/disk.qcow2").build(), new Consumers.UploadLike());

            assertThat(failure.reason()).isEqualTo(Reason.TRANSFER_BUDGET);
            assertThat(failure).hasMessageContaining("while waiting for the server to answer");
        }

        @Test
        void theCallersDeadlineEndsAStalledBodyPromptly() {
            server.serveStalled("/disk.qcow2", IMAGE, 100_000);
            long started = System.nanoTime();

            ImageFetchException failure = catchThrowableOfType(ImageFetchException.class, () -> fetcher(GENEROUS)
                    .fetch(source("/disk.qcow2").build(), "test", Deadline.after(Duration.ofMillis(700)),
                            new Consumers.UploadLike()));

            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertThat(failure.kind()).isEqualTo(ErrorKind.TRANSIENT);
            assertThat(failure.reason()).isEqualTo(Reason.DEADLINE);
            assertThat(failure).hasMessageContaining("the caller's deadline passed after 100000 of");
            assertThat(tookMillis).isBetween(600L, 1700L);
        }

        @Test
        void aBodyThatStallsFailsAtTheIdleLimitNamingWhatArrived() {
            server.serveStalled("/disk.qcow2", IMAGE, 100_000);
            long started = System.nanoTime();

            ImageFetchException failure = fetchFailure(idleFetcher(Duration.ofSeconds(1)),
                    source("/disk.qcow2").build(), new Consumers.UploadLike());

            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertThat(failure.kind()).isEqualTo(ErrorKind.TRANSIENT);
            assertThat(failure.reason()).isEqualTo(Reason.STALLED);
            assertThat(failure).hasMessageContaining("the image server http://127.0.0.1:" + server.port()
                            + " sent nothing for 1s (imageIdleTimeout)")
                    .hasMessageContaining("after 100000 of " + IMAGE.length + " bytes of the image arrived");
            assertThat(tookMillis).isLessThan(5_000);
        }

        @Test
        void anUnansweredGetFailsAtTheIdleLimit() {
            server.serveNothing("/disk.qcow2");
            long started = System.nanoTime();

            ImageFetchException failure = fetchFailure(idleFetcher(Duration.ofSeconds(1)),
                    source("/disk.qcow2").build(), new Consumers.UploadLike());

            assertThat(failure.reason()).isEqualTo(Reason.STALLED);
            assertThat(failure).hasMessageContaining("sent nothing for 1s (imageIdleTimeout) in answer to the GET"
                    + " request: no response headers arrived, 0 bytes of the image received");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(5_000);
        }

        @Test
        void theCallersDeadlineCapsTheIdleLimit() {
            server.serveNothing("/disk.qcow2");

            ImageFetchException failure = catchThrowableOfType(ImageFetchException.class,
                    () -> idleFetcher(Duration.ofSeconds(30)).fetch(source("/disk.qcow2").build(), "test",
                            Deadline.after(Duration.ofMillis(700)), new Consumers.UploadLike()));

            assertThat(failure.reason()).isEqualTo(Reason.DEADLINE);
        }

        @Test
        void aSlowBodyThatNeverFallsSilentOutlastsTheIdleLimit() {
            byte[] small = TestImages.disk(64 * 1024, 3);
            server.answer("/slow.qcow2", exchange -> {
                exchange.sendResponseHeaders(200, small.length);
                try (java.io.OutputStream body = exchange.getResponseBody()) {
                    for (int offset = 0; offset < small.length; offset += small.length / 8) {
                        body.write(small, offset, small.length / 8);
                        body.flush();
                        sleep(300);
                    }
                }
            });

            FetchResult fetched = idleFetcher(Duration.ofSeconds(1)).fetch(source("/slow.qcow2").build(), "test",
                    Deadline.after(GENEROUS), new Consumers.UploadLike());

            // About 2.4 s in all, with no pause of a second: the request timeout ended with the headers.
            assertThat(fetched.publishedBytes()).isEqualTo(small.length);
        }

        @Test
        void anExpiredDeadlineSendsNoRequest() {
            server.serve("/disk.qcow2", IMAGE);

            ImageFetchException failure = catchThrowableOfType(ImageFetchException.class, () -> fetcher(GENEROUS)
                    .fetch(source("/disk.qcow2").build(), "test", Deadline.after(Duration.ZERO),
                            new Consumers.UploadLike()));

            assertThat(failure.reason()).isEqualTo(Reason.DEADLINE);
            assertThat(server.requests("GET", "/disk.qcow2")).isZero();
        }

        @Test
        void anInterruptEndsAStalledBodyPromptlyAndStaysSet() throws InterruptedException {
            server.serveStalled("/disk.qcow2", IMAGE, 100_000);
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            AtomicReference<Boolean> stillInterrupted = new AtomicReference<>();
            CountDownLatch reading = new CountDownLatch(1);
            Thread fetching = new Thread(() -> {
                try {
                    fetcher(GENEROUS).fetch(source("/disk.qcow2").build(), "test", Deadline.none(), content -> {
                        content.stream().readNBytes(50_000);
                        reading.countDown();
                        content.stream().readAllBytes();
                    });
                } catch (RuntimeException failure) {
                    thrown.set(failure);
                    stillInterrupted.set(Thread.currentThread().isInterrupted());
                }
            });
            fetching.start();
            assertThat(reading.await(10, TimeUnit.SECONDS)).isTrue();
            Thread.sleep(200);
            long interruptedAt = System.nanoTime();

            fetching.interrupt();
            fetching.join(5_000);

            assertThat(fetching.isAlive()).isFalse();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - interruptedAt)).isLessThan(1000);
            assertThat(thrown.get()).isInstanceOf(ImageFetchException.class);
            assertThat(((ImageFetchException) thrown.get()).reason()).isEqualTo(Reason.INTERRUPTED);
            assertThat(stillInterrupted.get()).isTrue();
        }
    }

    @Test
    void progressCountsPublishedBytesFromTheAnnouncedSize() {
        server.serve("/disk.qcow2", IMAGE);
        List<String> events = new CopyOnWriteArrayList<>();
        long[] advanced = new long[1];
        ProgressReporter recording = (description, totalBytes) -> {
            events.add("begin " + description + " " + totalBytes);
            return new ProgressReporter.Progress() {
                @Override
                public void advance(long bytes) {
                    advanced[0] += bytes;
                }

                @Override
                public void close() {
                    events.add("close");
                }
            };
        };

        new ImageFetcher(TestImages::followingClient, recording, TransferBudget.of(GENEROUS)).fetch(
                source("/disk.qcow2").build(), "downloading disk to host-1", Deadline.after(GENEROUS),
                new Consumers.UploadLike());

        assertThat(events).containsExactly("begin downloading disk to host-1 " + IMAGE.length, "close");
        assertThat(advanced[0]).isEqualTo(IMAGE.length);
    }

    private static ImageFetcher idleFetcher(Duration idleLimit) {
        return new ImageFetcher(TestImages::followingClient, ProgressReporter.SILENT, TransferBudget.of(GENEROUS),
                idleLimit);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private ImageFetcher fetcher(Duration budget) {
        return new ImageFetcher(TestImages::followingClient, ProgressReporter.SILENT, TransferBudget.of(budget));
    }

    private ImageSource.Builder source(String path) {
        return ImageSource.builder(server.url(path));
    }

    private static ImageFetchException fetchFailure(ImageFetcher fetcher, ImageSource source, ImageConsumer consumer) {
        return catchThrowableOfType(ImageFetchException.class,
                () -> fetcher.fetch(source, "test", Deadline.after(GENEROUS), consumer));
    }
}

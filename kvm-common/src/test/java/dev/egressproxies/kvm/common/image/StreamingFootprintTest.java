package dev.egressproxies.kvm.common.image;

import dev.egressproxies.kvm.common.image.ImageFetcher.TransferBudget;
import dev.egressproxies.kvm.common.image.ImageFetcher.FetchResult;
import dev.egressproxies.kvm.common.image.ImageFetcher.ImageContent;
import dev.egressproxies.kvm.common.image.ImageFetcher.ImageConsumer;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.spi.ProgressReporter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.Locale;
import org.apache.commons.compress.compressors.xz.XZCompressorOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Memory and speed of the pipeline on images larger than anything it could buffer: the heap that
 * stays in use while 512 MiB stream through must not grow with the image. Figures are printed.
 */
class StreamingFootprintTest {
    private static final long MIB = 1024 * 1024;
    private static final long PLAIN_BYTES = 512 * MIB;
    /** 8 copies of a 16 MiB disk-like stretch: farther apart than xz -1's 1 MiB dictionary sees. */
    private static final int XZ_STRETCH_BYTES = (int) (16 * MIB);
    private static final long XZ_SOURCE_BYTES = 8 * XZ_STRETCH_BYTES;
    /** Far below the image: the pipeline's buffers are a few MiB at most, the rest is noise. */
    private static final long RETAINED_LIMIT = 48 * MIB;

    private final ImageTestServer server = new ImageTestServer();
    private final ImageFetcher fetcher = new ImageFetcher(TestImages::followingClient, ProgressReporter.SILENT,
            TransferBudget.of(Duration.ofMinutes(5)));
    private final Runtime runtime = Runtime.getRuntime();

    StreamingFootprintTest() throws IOException {
    }

    @AfterEach
    void stopServer() {
        server.close();
    }

    @Test
    void a512MibImageStreamsInBoundedMemory() throws IOException {
        GeneratedBytes generator = new GeneratedBytes(7);
        server.serveGenerated("/large.raw", PLAIN_BYTES, generator);
        String digest = generator.sha256(PLAIN_BYTES);
        HeapWatcher heap = new HeapWatcher(PLAIN_BYTES);
        long baseline = heap.retainedNow();
        long started = System.nanoTime();

        FetchResult result = fetcher.fetch(ImageSource.builder(server.url("/large.raw")).sha256(digest).build(),
                "test", Deadline.after(Duration.ofMinutes(5)), heap);

        double seconds = (System.nanoTime() - started) / 1e9;
        assertThat(result.decompressedBytes()).isEqualTo(PLAIN_BYTES);
        report("plain 512 MiB, sha256 pinned", PLAIN_BYTES, PLAIN_BYTES, seconds, baseline, heap);
        assertThat(heap.largestRetained() - baseline).isLessThan(RETAINED_LIMIT);
    }

    @Test
    void anXzImageStreamsInBoundedMemory() throws IOException {
        byte[] published = xzOf(TestImages.disk(XZ_STRETCH_BYTES, 8), 8);
        server.serve("/large.raw.xz", published);
        HeapWatcher heap = new HeapWatcher(XZ_SOURCE_BYTES);
        long baseline = heap.retainedNow();
        long started = System.nanoTime();

        FetchResult result = fetcher.fetch(ImageSource.builder(server.url("/large.raw.xz"))
                .sha256(TestImages.sha256(published)).build(), "test", Deadline.after(Duration.ofMinutes(5)), heap);

        double seconds = (System.nanoTime() - started) / 1e9;
        assertThat(result.decompressedBytes()).isEqualTo(XZ_SOURCE_BYTES);
        report("xz " + published.length / MIB + " MiB -> " + XZ_SOURCE_BYTES / MIB + " MiB", published.length,
                XZ_SOURCE_BYTES, seconds, baseline, heap);
        // The xz decoder's dictionary (1 MiB at preset 1, 64 MiB at -9) is the one cost that depends on the file.
        assertThat(heap.largestRetained() - baseline).isLessThan(RETAINED_LIMIT);
    }

    private void report(String what, long publishedBytes, long imageBytes, double seconds, long baseline,
                        HeapWatcher heap) {
        System.out.printf(Locale.ROOT, "[image fetch] %s: %.1f s, %.0f MiB/s published, %.0f MiB/s image;"
                        + " heap retained above baseline at most %.1f MiB (baseline %.1f MiB), heap used at most"
                        + " %.1f MiB, max heap %.0f MiB%n",
                what, seconds, publishedBytes / (double) MIB / seconds, imageBytes / (double) MIB / seconds,
                (heap.largestRetained() - baseline) / (double) MIB, baseline / (double) MIB,
                heap.largestUsed() / (double) MIB, runtime.maxMemory() / (double) MIB);
    }

    /** xz (preset 1) of {@code stretch} written {@code copies} times. */
    private static byte[] xzOf(byte[] stretch, int copies) throws IOException {
        ByteArrayOutputStream compressed = new ByteArrayOutputStream();
        try (XZCompressorOutputStream out = TestImages.xz(compressed)) {
            for (int copy = 0; copy < copies; copy++) {
                out.write(stretch);
            }
        }
        return compressed.toByteArray();
    }

    /**
     * A consumer that reads the image in 1 MiB chunks, as a volume upload does, and measures the heap
     * on the way: "used" whenever it looks, and "retained" (used right after a full collection) at
     * every eighth of the image, which is what the pipeline keeps alive rather than garbage.
     */
    private final class HeapWatcher implements ImageConsumer {
        private final long checkEvery;
        private long largestRetained;
        private long largestUsed;

        HeapWatcher(long imageBytes) {
            this.checkEvery = imageBytes / 8;
        }

        @Override
        public void accept(ImageContent content) throws IOException {
            byte[] chunk = new byte[1 << 20];
            long read = 0;
            long nextCheck = checkEvery;
            int count;
            while ((count = content.stream().read(chunk)) != -1) {
                read += count;
                largestUsed = Math.max(largestUsed, used());
                if (read >= nextCheck) {
                    largestRetained = Math.max(largestRetained, retainedNow());
                    nextCheck += checkEvery;
                }
            }
        }

        long retainedNow() {
            System.gc();
            return used();
        }

        long largestRetained() {
            return largestRetained;
        }

        long largestUsed() {
            return largestUsed;
        }
    }

    private long used() {
        return runtime.totalMemory() - runtime.freeMemory();
    }
}

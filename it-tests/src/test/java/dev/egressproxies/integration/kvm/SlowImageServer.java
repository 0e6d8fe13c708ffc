package dev.egressproxies.integration.kvm;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback HTTP server that serves one image file slowly, so that a create's image upload is
 * still in flight when a test breaks the link under it. While {@linkplain #slow(boolean) slow} it
 * sends {@value #CHUNK} bytes every {@value #PAUSE_MILLIS} ms (about 100 KiB/s); otherwise at full
 * speed. The Content-Length is always the file's length, so a cut-off transfer is detectable.
 */
final class SlowImageServer implements AutoCloseable {
    private static final int CHUNK = 2048;
    private static final long PAUSE_MILLIS = 20;

    private final byte[] image;
    private final HttpServer server;
    private final AtomicLong bytesSent = new AtomicLong();
    private volatile boolean slow = true;
    private volatile CountDownLatch sentEnough = new CountDownLatch(1);
    private volatile long enoughBytes = Long.MAX_VALUE;

    private SlowImageServer(byte[] image, HttpServer server) {
        this.image = image;
        this.server = server;
    }

    /** Starts serving {@code file} on 127.0.0.1 at an ephemeral port, slowly. */
    static SlowImageServer serve(Path file) throws IOException {
        byte[] image = Files.readAllBytes(file);
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        SlowImageServer slowServer = new SlowImageServer(image, server);
        server.createContext("/", exchange -> {
            try (exchange) {
                if (!"GET".equals(exchange.getRequestMethod())) {
                    exchange.sendResponseHeaders(405, -1);
                    return;
                }
                exchange.getResponseHeaders().set("Content-Type", "application/octet-stream");
                exchange.sendResponseHeaders(200, image.length);
                slowServer.send(exchange.getResponseBody());
            } catch (IOException clientGone) {
                // The client closed the connection: the transfer was cut off, which is the point.
            }
        });
        server.setExecutor(Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "slow-image-server");
            thread.setDaemon(true);
            return thread;
        }));
        server.start();
        return slowServer;
    }

    /** The URL of the image. */
    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/image.qcow2";
    }

    /** The image's length in bytes. */
    long length() {
        return image.length;
    }

    /** Serves slowly, or at full speed from the next chunk on. */
    void slow(boolean slow) {
        this.slow = slow;
    }

    /** Arms {@link #awaitSent}: it returns once {@code bytes} more bytes have been sent from now. */
    void expect(long bytes) {
        enoughBytes = bytesSent.get() + bytes;
        sentEnough = new CountDownLatch(1);
    }

    /** Waits until the bytes {@link #expect}ed have been sent; false on timeout. */
    boolean awaitSent(Duration timeout) throws InterruptedException {
        return sentEnough.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The bytes sent to all clients so far. */
    long bytesSent() {
        return bytesSent.get();
    }

    private void send(OutputStream body) throws IOException {
        int offset = 0;
        while (offset < image.length) {
            int length = slow ? Math.min(CHUNK, image.length - offset) : image.length - offset;
            body.write(image, offset, length);
            body.flush();
            offset += length;
            if (bytesSent.addAndGet(length) >= enoughBytes) {
                sentEnough.countDown();
            }
            if (slow) {
                try {
                    Thread.sleep(PAUSE_MILLIS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted", e);
                }
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
}

package dev.egressproxies.kvm.common.image;

import dev.egressproxies.api.spi.ProgressReporter;
import dev.egressproxies.kvm.common.image.ImageFetchException.Reason;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * An image's HTTP response body as an {@link InputStream}: counts and reports the bytes, fails a read
 * when the server stays silent for the idle limit, and closes itself when the fetch's time is up.
 */
final class SourceStream extends InputStream implements HttpResponse.BodySubscriber<SourceStream> {
    /** The end of the body (or of waiting for it); compared by identity. */
    private static final List<ByteBuffer> END = Collections.unmodifiableList(new ArrayList<>(0));
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
    // How far the client reads ahead while the reader hashes and uploads (a hand-off per buffer held uploads
    // to a fraction of the link); bounded, since what waits is copied at each young collection.
    private static final int BYTES_AHEAD = 4 * 1024 * 1024;
    /** The client's read buffer (its default, unless set); each list it delivers holds at most three. */
    private static final int CLIENT_BUFFER_BYTES = Integer.getInteger("jdk.httpclient.bufsize", 16 * 1024);
    private static final int LISTS_AHEAD = Math.max(2, BYTES_AHEAD / (3 * CLIENT_BUFFER_BYTES));

    private final BlockingQueue<List<ByteBuffer>> arrived = new LinkedBlockingQueue<>();
    private final CompletableFuture<Void> watchdog = new CompletableFuture<>();
    private final long idleLimitNanos;
    private volatile Flow.Subscription subscription;
    private volatile Throwable failure;
    private volatile boolean closed;
    private volatile long count;
    private Iterator<ByteBuffer> buffers = Collections.emptyIterator();
    private ByteBuffer current = EMPTY;
    private boolean ended;
    private FetchAttempt attempt;
    private long length;
    private ProgressReporter.Progress progress;

    /** A body whose read fails once it waited {@code idleLimit} for the server's next bytes. */
    SourceStream(Duration idleLimit) {
        this.idleLimitNanos = idleLimit.toNanos();
    }

    /** Before the first read: reads report to {@code shown}, and the body closes when {@code fetch}'s time is up. */
    void watch(FetchAttempt fetch, long announced, ProgressReporter.Progress shown) {
        this.attempt = fetch;
        this.length = announced;
        this.progress = shown;
        watchdog.orTimeout(Math.max(1, fetch.remaining().toNanos()), TimeUnit.NANOSECONDS)
                .whenComplete((ignored, timeout) -> {
                    if (timeout instanceof TimeoutException) {
                        fetch.fail(fetch.timeUp("after " + progressText() + " arrived", null));
                        close();
                    }
                });
    }

    private String progressText() {
        return count + " of " + length + " bytes";
    }

    @Override
    public CompletionStage<SourceStream> getBody() {
        // Complete at once: the response is handed over when its headers are in, the body read later.
        return CompletableFuture.completedFuture(this);
    }

    @Override
    public void onSubscribe(Flow.Subscription newSubscription) {
        subscription = newSubscription;
        if (closed) {
            newSubscription.cancel();
            return;
        }
        newSubscription.request(LISTS_AHEAD);
    }

    @Override
    public void onNext(List<ByteBuffer> item) {
        arrived.add(item);
    }

    @Override
    public void onError(Throwable error) {
        failure = error;
        arrived.add(END);
    }

    @Override
    public void onComplete() {
        arrived.add(END);
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) == -1 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] target, int offset, int wanted) throws IOException {
        attempt.throwIfFailed();
        if (Thread.currentThread().isInterrupted()) {
            throw attempt.fail(attempt.interrupted("interrupted after " + progressText() + " arrived from "
                    + attempt.url(), null));
        }
        if (wanted == 0) {
            return 0;
        }
        ByteBuffer buffer;
        try {
            buffer = bufferWithData();
        } catch (SocketTimeoutException idle) {
            attempt.throwIfFailed();
            throw attempt.fail(attempt.stalled("after " + progressText() + " of the image arrived", idle));
        } catch (IOException broken) {
            // A watchdog that closed the body recorded why first; that is the failure to report.
            attempt.throwIfFailed();
            if (Thread.currentThread().isInterrupted() || broken instanceof InterruptedIOException) {
                throw attempt.fail(attempt.interrupted("interrupted after " + progressText() + " arrived from "
                        + attempt.url(), broken));
            }
            throw attempt.fail(attempt.transientFailure(Reason.BODY_BROKEN, "the server sent " + progressText()
                    + " of the image from " + attempt.url() + " before the connection broke ("
                    + attempt.url().describe(broken) + "); retry", broken));
        }
        if (buffer == null) {
            return -1;
        }
        int read = Math.min(wanted, buffer.remaining());
        buffer.get(target, offset, read);
        count += read;
        progress.advance(read);
        return read;
    }

    @Override
    public int available() {
        return current.remaining();
    }

    /** Stops the body and its watchdog: cancels the download and ends any read, now or later, with an error. */
    @Override
    public void close() {
        watchdog.complete(null);
        if (closed) {
            return;
        }
        closed = true;
        Flow.Subscription active = subscription;
        if (active != null) {
            active.cancel();
        }
        arrived.add(END);
    }

    /** The buffer to read from next, waiting for one if need be; null at the body's end. */
    private ByteBuffer bufferWithData() throws IOException {
        while (!current.hasRemaining()) {
            if (buffers.hasNext()) {
                current = buffers.next();
                continue;
            }
            if (closed) {
                throw new IOException("the response body was closed");
            }
            if (ended) {
                return null;
            }
            List<ByteBuffer> next = take();
            if (next == END) {
                if (closed) {
                    throw new IOException("the response body was closed");
                }
                if (failure != null) {
                    throw new IOException(failure.getMessage(), failure);
                }
                ended = true;
                return null;
            }
            buffers = next.iterator();
            // One more for the one taken: the client stays LISTS_AHEAD lists ahead, memory bounded.
            subscription.request(1);
        }
        return current;
    }

    private List<ByteBuffer> take() throws IOException {
        try {
            List<ByteBuffer> next = arrived.poll(idleLimitNanos, TimeUnit.NANOSECONDS);
            if (next == null) {
                throw new SocketTimeoutException("no bytes of the response body arrived for "
                        + TimeUnit.NANOSECONDS.toMillis(idleLimitNanos) + " ms");
            }
            return next;
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw (InterruptedIOException) new InterruptedIOException("interrupted while waiting for the response body")
                    .initCause(interrupted);
        }
    }
}

package dev.egressproxies.kvm.common.image;

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

/**
 * An HTTP response body as an {@link InputStream} that a blocked read can leave: an interrupt of
 * the reading thread ends the read at once (with the interrupt flag kept), and so does
 * {@link #close()} from another thread.
 *
 * <p>It replaces the JDK's {@code BodyHandlers.ofInputStream()}, whose read on Java 17 swallows
 * interrupts (it catches the interruption, clears the flag and waits on), so a fetch stuck on a
 * silent server could not be interrupted. A read also gives up when the server sends nothing for
 * the idle limit: a response body takes no read timeout of its own. Demand is {@value #LISTS_AHEAD} lists of buffers ahead of
 * the reader, so memory stays at about a MiB of the client's buffers whatever the body's size.
 */
final class BodyStream extends InputStream implements HttpResponse.BodySubscriber<BodyStream> {
    /** The end of the body (or of waiting for it); compared by identity. */
    private static final List<ByteBuffer> END = Collections.unmodifiableList(new ArrayList<>(0));
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
    /**
     * How many lists of buffers the client may deliver before the reader takes them. A list is one
     * read of the socket (16 KiB with the client's default buffers), so this is about a MiB: the
     * client goes on reading while the reader hashes and uploads, instead of waiting to be asked
     * for every list (which, with one list ahead, cost a hand-over between threads every 16 KiB
     * and held an image upload to a fraction of what the link carries).
     */
    private static final int LISTS_AHEAD = 64;

    private final BlockingQueue<List<ByteBuffer>> arrived = new LinkedBlockingQueue<>();
    private final CompletableFuture<BodyStream> self = CompletableFuture.completedFuture(this);
    private final long idleLimitNanos;
    private volatile Flow.Subscription subscription;
    private volatile Throwable failure;
    private volatile boolean closed;
    private Iterator<ByteBuffer> buffers = Collections.emptyIterator();
    private ByteBuffer current = EMPTY;
    private boolean ended;

    /**
     * The body handler that makes one of these per response; a read that waits {@code idleLimit}
     * for the server's next bytes fails with a {@link SocketTimeoutException}.
     */
    static HttpResponse.BodyHandler<BodyStream> handler(Duration idleLimit) {
        return responseInfo -> new BodyStream(idleLimit);
    }

    private BodyStream(Duration idleLimit) {
        this.idleLimitNanos = idleLimit.toNanos();
    }

    @Override
    public CompletionStage<BodyStream> getBody() {
        // Complete at once: the response is handed over when its headers are in, the body read later.
        return self;
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
        ByteBuffer buffer = bufferWithData();
        return buffer == null ? -1 : buffer.get() & 0xff;
    }

    @Override
    public int read(byte[] target, int offset, int length) throws IOException {
        if (length == 0) {
            return 0;
        }
        ByteBuffer buffer = bufferWithData();
        if (buffer == null) {
            return -1;
        }
        int read = Math.min(length, buffer.remaining());
        buffer.get(target, offset, read);
        return read;
    }

    @Override
    public int available() {
        return current.remaining();
    }

    /** Stops the body: cancels the download and ends any read, now or later, with an error. */
    @Override
    public void close() {
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
                endOfBody();
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
            InterruptedIOException thrown = new InterruptedIOException("interrupted while waiting for the response body");
            thrown.initCause(interrupted);
            throw thrown;
        }
    }

    private void endOfBody() throws IOException {
        if (closed) {
            throw new IOException("the response body was closed");
        }
        Throwable error = failure;
        if (error != null) {
            throw new IOException(error.getMessage(), error);
        }
        ended = true;
    }
}

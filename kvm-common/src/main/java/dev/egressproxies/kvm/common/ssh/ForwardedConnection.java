package dev.egressproxies.kvm.common.ssh;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One local client connection carried through its own {@code direct-streamlocal} channel, with a
 * thread per direction that copies bytes as they come.
 *
 * <p>Half-closes travel both ways: end of stream from the local client becomes an SSH EOF, and an
 * SSH EOF from the host shuts down the local socket's output, so protocols that signal the end of a
 * request by closing one direction keep working. When the channel closes (the host hung up, the
 * SSH connection died, the tunnel was closed) the local socket is closed entirely after what had
 * already arrived is delivered, so the local client sees end of stream or an error, never a hang.
 */
final class ForwardedConnection implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ForwardedConnection.class);
    /** One SSH packet's worth: MINA's default maximum packet size is 32 KiB. */
    private static final int BUFFER_BYTES = 32 * 1024;
    /**
     * Toward the host, several packets per read of the local socket (MINA cuts a write into
     * packets): a bulk upload then costs a fraction of the reads and flushes.
     */
    private static final int TO_HOST_BUFFER_BYTES = 256 * 1024;

    private final SocketChannel local;
    private final RemoteSocket remote;
    private final TunnelThreads threads;
    private final Consumer<ForwardedConnection> whenFinished;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicInteger finishedDirections = new AtomicInteger();

    private ChannelDirectStreamLocal channel;
    private Thread fromHost;
    private Thread toHost;

    ForwardedConnection(SocketChannel local, RemoteSocket remote, TunnelThreads threads,
            Consumer<ForwardedConnection> whenFinished) {
        this.local = local;
        this.remote = remote;
        this.threads = threads;
        this.whenFinished = whenFinished;
    }

    /** Opens the channel and starts copying, in the background: accepting must not wait for sshd. */
    synchronized void start() {
        fromHost = threads.start("from-host", this::openAndCopyFromHost);
    }

    /**
     * Closes the local socket and the channel, which ends both copying threads; idempotent and
     * callable from any thread.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        closeQuietly(local);
        ChannelDirectStreamLocal opened = openedChannel();
        if (opened != null) {
            // Graceful: sends SSH_MSG_CHANNEL_CLOSE after pending data, so sshd releases its end too.
            opened.close(false);
        }
        whenFinished.accept(this);
    }

    /** Waits until both copying threads have ended, at most until {@code deadlineNanos}. */
    void awaitThreads(long deadlineNanos) throws InterruptedException {
        for (Thread thread : startedThreads()) {
            long remaining = deadlineNanos - System.nanoTime();
            if (thread != null && thread != Thread.currentThread() && remaining > 0) {
                TimeUnit.NANOSECONDS.timedJoin(thread, remaining);
            }
        }
    }

    private void openAndCopyFromHost() {
        ChannelDirectStreamLocal opened;
        try {
            opened = remote.connect();
        } catch (SshTunnelException e) {
            LOG.warn("Closing a local connection to {}: {}", remote.path(), e.getMessage());
            close();
            return;
        }
        synchronized (this) {
            channel = opened;
            if (closed.get()) {
                // close() ran while the channel was being opened and could not see it.
                opened.close(false);
                return;
            }
            toHost = threads.start("to-host", this::copyToHost);
        }
        copyFromHost(opened);
    }

    private void copyFromHost(ChannelDirectStreamLocal opened) {
        byte[] buffer = new byte[BUFFER_BYTES];
        try (InputStream fromChannel = opened.getInvertedOut()) {
            for (int count = fromChannel.read(buffer); count >= 0; count = fromChannel.read(buffer)) {
                ByteBuffer pending = ByteBuffer.wrap(buffer, 0, count);
                while (pending.hasRemaining()) {
                    local.write(pending);
                }
            }
            if (opened.isClosing()) {
                close();
                return;
            }
            local.shutdownOutput();
            finishDirection();
        } catch (IOException e) {
            failed("from", e);
        }
    }

    private void copyToHost() {
        ChannelDirectStreamLocal opened = openedChannel();
        ByteBuffer buffer = ByteBuffer.allocate(TO_HOST_BUFFER_BYTES);
        try {
            OutputStream toChannel = opened.getInvertedIn();
            while (local.read(buffer) >= 0) {
                toChannel.write(buffer.array(), 0, buffer.position());
                toChannel.flush();
                buffer.clear();
            }
            toChannel.close();
            finishDirection();
        } catch (IOException e) {
            failed("to", e);
        }
    }

    /** Closes everything once both directions have ended normally. */
    private void finishDirection() {
        if (finishedDirections.incrementAndGet() == 2) {
            close();
        }
    }

    private void failed(String direction, IOException e) {
        if (!closed.get()) {
            LOG.debug("Copying {} {} failed, closing the connection: {}", direction, remote.path(), e.toString());
        }
        close();
    }

    private synchronized ChannelDirectStreamLocal openedChannel() {
        return channel;
    }

    private synchronized Thread[] startedThreads() {
        return new Thread[] {fromHost, toHost};
    }

    private static void closeQuietly(SocketChannel socket) {
        try {
            socket.close();
        } catch (IOException e) {
            LOG.debug("Closing a local socket failed: {}", e.toString());
        }
    }
}

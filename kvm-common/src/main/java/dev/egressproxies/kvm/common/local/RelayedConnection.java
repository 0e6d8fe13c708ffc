package dev.egressproxies.kvm.common.local;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * One client connection of a {@link UnixSocketRelay} and its connection to the target socket, with
 * a thread per direction copying bytes as they come.
 *
 * <p>An end of stream travels on as a half-close, so either side sees the other hang up. {@link
 * #close()} closes both sockets, which also ends a thread blocked reading either of them.
 */
final class RelayedConnection {
    /** libvirt's RPC messages are at most a few hundred KiB; this moves most in one or two reads. */
    private static final int BUFFER_BYTES = 64 * 1024;

    private final SocketChannel client;
    private final SocketChannel target;
    private final Consumer<RelayedConnection> onClosed;
    private final AtomicInteger directionsEnded = new AtomicInteger();
    private final AtomicBoolean closed = new AtomicBoolean();

    RelayedConnection(SocketChannel client, SocketChannel target, Consumer<RelayedConnection> onClosed) {
        this.client = client;
        this.target = target;
        this.onClosed = onClosed;
    }

    /** Starts copying both ways, on two daemon threads named after {@code name}. */
    void start(String name) {
        startThread(name + "-to-target", client, target);
        startThread(name + "-to-client", target, client);
    }

    /** Closes both sockets; safe to call more than once and from any thread. */
    void close() {
        if (closed.compareAndSet(false, true)) {
            closeQuietly(client);
            closeQuietly(target);
            onClosed.accept(this);
        }
    }

    private void startThread(String name, SocketChannel from, SocketChannel to) {
        Thread thread = new Thread(() -> copy(from, to), name);
        thread.setDaemon(true);
        thread.start();
    }

    private void copy(SocketChannel from, SocketChannel to) {
        ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER_BYTES);
        try {
            while (from.read(buffer) >= 0) {
                buffer.flip();
                while (buffer.hasRemaining()) {
                    to.write(buffer);
                }
                buffer.clear();
            }
            to.shutdownOutput();
        } catch (IOException e) {
            // Either side failed, or close() cut the sockets: nothing more can be relayed.
            close();
            return;
        }
        if (directionsEnded.incrementAndGet() == 2) {
            close();
        }
    }

    private static void closeQuietly(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // Closing is all that is left to do with it; the descriptor is released either way.
        }
    }
}

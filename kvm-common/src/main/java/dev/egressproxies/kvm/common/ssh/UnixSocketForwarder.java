package dev.egressproxies.kvm.common.ssh;

import dev.egressproxies.kvm.common.local.PrivateSocketDirectory;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A local unix socket, in a private folder, whose every accepted connection is carried to a
 * {@link RemoteSocket} through a new SSH channel.
 */
final class UnixSocketForwarder implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(UnixSocketForwarder.class);
    private static final String SOCKET_NAME = "forwarded.sock";

    private final PrivateSocketDirectory directory;
    private final ServerSocketChannel listener;
    private final RemoteSocket remote;
    private final TunnelThreads threads;
    private final Runnable whenListenerFails;
    private final Set<ForwardedConnection> connections = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    private Thread acceptLoop;

    private UnixSocketForwarder(PrivateSocketDirectory directory, ServerSocketChannel listener, RemoteSocket remote,
            TunnelThreads threads, Runnable whenListenerFails) {
        this.directory = directory;
        this.listener = listener;
        this.remote = remote;
        this.threads = threads;
        this.whenListenerFails = whenListenerFails;
    }

    /**
     * Creates the private folder and its listening socket and starts accepting.
     *
     * @param whenListenerFails called when accepting fails for another reason than {@link #close()}:
     *     a tunnel that cannot accept is useless and should be closed
     */
    static UnixSocketForwarder start(RemoteSocket remote, TunnelThreads threads, Runnable whenListenerFails)
            throws IOException {
        PrivateSocketDirectory directory = PrivateSocketDirectory.create("egress-ssh-tunnel-");
        ServerSocketChannel listener = null;
        try {
            listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            listener.bind(UnixDomainSocketAddress.of(directory.resolve(SOCKET_NAME)));
            UnixSocketForwarder forwarder =
                    new UnixSocketForwarder(directory, listener, remote, threads, whenListenerFails);
            forwarder.acceptLoop = threads.start("accept", forwarder::acceptConnections);
            return forwarder;
        } catch (IOException | RuntimeException e) {
            if (listener != null) {
                listener.close();
            }
            directory.close();
            throw e;
        }
    }

    /** Returns the path of the local socket that clients connect to. */
    Path socketPath() {
        return directory.resolve(SOCKET_NAME);
    }

    /** Returns the private folder that holds the socket. */
    Path directory() {
        return directory.path();
    }

    /** Returns how many local connections are being forwarded right now. */
    int activeConnections() {
        return connections.size();
    }

    /**
     * Stops accepting, closes every forwarded connection, waits (until {@code deadlineNanos} at
     * most) for their threads to end, and deletes the folder; idempotent.
     */
    void close(long deadlineNanos) throws InterruptedException {
        closed = true;
        try {
            listener.close();
        } catch (IOException e) {
            LOG.debug("Closing the listening socket {} failed: {}", socketPath(), e.toString());
        }
        List<ForwardedConnection> open = List.copyOf(connections);
        open.forEach(ForwardedConnection::close);
        try {
            directory.close();
        } catch (IOException e) {
            LOG.warn("Could not delete the tunnel's socket folder {}: {}", directory.path(), e.toString());
        }
        if (acceptLoop != Thread.currentThread()) {
            TimeUnit.NANOSECONDS.timedJoin(acceptLoop, Math.max(0, deadlineNanos - System.nanoTime()));
        }
        for (ForwardedConnection connection : open) {
            connection.awaitThreads(deadlineNanos);
        }
    }

    /** Closes without waiting for threads. */
    @Override
    public void close() {
        try {
            close(System.nanoTime());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void acceptConnections() {
        while (!closed) {
            SocketChannel accepted;
            try {
                accepted = listener.accept();
            } catch (IOException e) {
                if (!closed) {
                    LOG.warn("Accepting on {} failed, closing the tunnel: {}", socketPath(), e.toString());
                    whenListenerFails.run();
                }
                return;
            }
            ForwardedConnection connection = new ForwardedConnection(accepted, remote, threads, connections::remove);
            connections.add(connection);
            if (closed) {
                // close() copied the set before this connection was added.
                connection.close();
                return;
            }
            connection.start();
        }
    }
}

package dev.egressproxies.kvm.common.local;

import dev.egressproxies.kvm.common.host.LibvirtTransport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A private local unix socket whose every connection is relayed to another unix socket on this
 * machine, and which can be cut from any thread: the in-process counterpart of an SSH tunnel.
 *
 * <p>A libvirt connection made straight to a local daemon's socket cannot be cut from outside, so a
 * call blocked on a daemon that hangs could never be made to return. Through the relay it can:
 * {@link #close()} closes the listening socket and both ends of every relayed connection, and the
 * blocked call fails at once.
 *
 * <p>The socket lives in a fresh {@link PrivateSocketDirectory} that only this user may enter (mode
 * 0700), since whoever can connect to it controls the hypervisor.
 */
public final class UnixSocketRelay implements LibvirtTransport {
    private static final String SOCKET_NAME = "libvirt.sock";
    private static final AtomicInteger RELAY_NUMBERS = new AtomicInteger();

    private final Path target;
    private final PrivateSocketDirectory folder;
    private final Path socket;
    private final ServerSocketChannel listener;
    private final String name;
    private final Set<RelayedConnection> connections = ConcurrentHashMap.newKeySet();
    private final AtomicInteger connectionNumbers = new AtomicInteger();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Set when a relayed connection ended on its own: the daemon hung up or restarted. */
    private volatile boolean connectionLost;

    private UnixSocketRelay(Path target, PrivateSocketDirectory folder, ServerSocketChannel listener) {
        this.target = target;
        this.folder = folder;
        this.socket = folder.resolve(SOCKET_NAME);
        this.listener = listener;
        this.name = "egress-relay-" + RELAY_NUMBERS.incrementAndGet();
    }

    /**
     * Starts a relay to the unix socket at {@code target}, listening in a new private folder in the
     * system's temporary folder. The target is connected once per accepted connection.
     */
    public static UnixSocketRelay start(Path target) throws IOException {
        PrivateSocketDirectory folder = PrivateSocketDirectory.create("egress-libvirt-");
        UnixSocketRelay relay;
        ServerSocketChannel listener = null;
        try {
            listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            listener.bind(UnixDomainSocketAddress.of(folder.resolve(SOCKET_NAME)));
            relay = new UnixSocketRelay(target, folder, listener);
        } catch (IOException | RuntimeException e) {
            if (listener != null) {
                listener.close();
            }
            folder.close();
            throw e;
        }
        Thread acceptor = new Thread(relay::acceptConnections, relay.name + "-accept");
        acceptor.setDaemon(true);
        acceptor.start();
        return relay;
    }

    @Override
    public Path socketPath() {
        return socket;
    }

    /** The socket this relay forwards to. */
    public Path target() {
        return target;
    }

    /** How many connections are being relayed right now. */
    public int connectionCount() {
        return connections.size();
    }

    /**
     * False once closed, and once a relayed connection ended on its own: a libvirt connection
     * uses one socket connection for its whole life, so that one ending means the daemon hung up,
     * and the link is noticed dead before a call fails on it.
     */
    @Override
    public boolean isOpen() {
        return !closed.get() && !connectionLost;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            listener.close();
        } catch (IOException e) {
            // Listening ends either way; what matters below is cutting the relayed connections.
        }
        connections.forEach(RelayedConnection::close);
        try {
            folder.close();
        } catch (IOException e) {
            // A leftover socket folder harms nobody (mode 0700); the exit hook or the next process's
            // sweep removes it.
        }
    }

    @Override
    public String toString() {
        return "UnixSocketRelay[" + socket + " -> " + target + "]";
    }

    private void acceptConnections() {
        while (!closed.get()) {
            SocketChannel client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                // The listener was closed, or failed for good (out of descriptors): either way the
                // relay is finished, and a closed transport makes the pool redial.
                close();
                return;
            }
            relay(client);
        }
    }

    private void relay(SocketChannel client) {
        SocketChannel upstream;
        try {
            upstream = SocketChannel.open(UnixDomainSocketAddress.of(target));
        } catch (IOException | UncheckedIOException e) {
            // The client sees its connection closed at once and reports it; the relay is no good.
            connectionLost = true;
            try {
                client.close();
            } catch (IOException ignored) {
                // Closing is all that was left to do with it.
            }
            return;
        }
        RelayedConnection connection = new RelayedConnection(client, upstream, this::connectionEnded);
        connections.add(connection);
        if (closed.get()) {
            // close() may have run between accept and add and missed this one.
            connection.close();
            return;
        }
        connection.start(name + "-" + connectionNumbers.incrementAndGet());
    }

    private void connectionEnded(RelayedConnection connection) {
        connections.remove(connection);
        if (!closed.get()) {
            connectionLost = true;
        }
    }
}

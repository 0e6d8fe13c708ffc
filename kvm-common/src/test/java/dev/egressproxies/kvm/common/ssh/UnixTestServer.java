package dev.egressproxies.kvm.common.ssh;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A unix socket server the tests forward to, standing in for libvirtd: either an echo server that
 * sends back every byte and half-closes when the client does, or a silent one that reads and
 * never answers.
 */
final class UnixTestServer implements AutoCloseable {
    private final Path directory;
    private final ServerSocketChannel listener;
    private final boolean echo;
    private final Set<SocketChannel> connections = ConcurrentHashMap.newKeySet();
    private final AtomicInteger accepted = new AtomicInteger();
    private final Thread acceptLoop;

    private UnixTestServer(boolean echo) throws IOException {
        this.echo = echo;
        this.directory = Files.createTempDirectory("egress-test-unix-");
        this.listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        listener.bind(UnixDomainSocketAddress.of(socketPath()));
        this.acceptLoop = new Thread(this::acceptConnections, "unix-test-server-accept");
        acceptLoop.setDaemon(true);
        acceptLoop.start();
    }

    /** Starts a server that echoes every byte back. */
    static UnixTestServer echo() throws IOException {
        return new UnixTestServer(true);
    }

    /** Starts a server that reads and never answers. */
    static UnixTestServer silent() throws IOException {
        return new UnixTestServer(false);
    }

    Path socketPath() {
        return directory.resolve("server.sock");
    }

    /** Returns how many connections were accepted so far. */
    int acceptedConnections() {
        return accepted.get();
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (SocketChannel connection : connections) {
            connection.close();
        }
        TestKeys.deleteQuietly(directory);
    }

    private void acceptConnections() {
        while (listener.isOpen()) {
            try {
                SocketChannel connection = listener.accept();
                accepted.incrementAndGet();
                connections.add(connection);
                Thread serving = new Thread(() -> serve(connection), "unix-test-server-connection");
                serving.setDaemon(true);
                serving.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(SocketChannel connection) {
        ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
        try (connection) {
            while (connection.read(buffer) >= 0) {
                buffer.flip();
                if (echo) {
                    while (buffer.hasRemaining()) {
                        connection.write(buffer);
                    }
                }
                buffer.clear();
            }
            connection.shutdownOutput();
        } catch (IOException e) {
            // The client or the test closed the connection; nothing to report.
        } finally {
            connections.remove(connection);
        }
    }
}

package dev.egressproxies.kvm.common.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(30)
class UnixSocketRelayTest {
    @TempDir
    Path folder;

    private ServerSocketChannel target;
    private UnixSocketRelay relay;

    @AfterEach
    void closeEverything() throws IOException {
        if (relay != null) {
            relay.close();
        }
        if (target != null) {
            target.close();
        }
    }

    /** What the target socket does with each connection. */
    private enum Behaviour { ECHO, SILENT, HANG_UP }

    private Path startTarget(Behaviour behaviour) throws IOException {
        Path socket = folder.resolve("target.sock");
        target = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        target.bind(UnixDomainSocketAddress.of(socket));
        Thread acceptor = new Thread(() -> {
            try {
                while (true) {
                    SocketChannel connection = target.accept();
                    Thread handler = new Thread(() -> serve(connection, behaviour));
                    handler.setDaemon(true);
                    handler.start();
                }
            } catch (IOException e) {
                // The test closed the target.
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();
        return socket;
    }

    private static void serve(SocketChannel connection, Behaviour behaviour) {
        try (connection) {
            if (behaviour == Behaviour.HANG_UP) {
                return;
            }
            ByteBuffer buffer = ByteBuffer.allocate(1024);
            while (connection.read(buffer) >= 0) {
                buffer.flip();
                if (behaviour == Behaviour.ECHO) {
                    while (buffer.hasRemaining()) {
                        connection.write(buffer);
                    }
                }
                buffer.clear();
            }
        } catch (IOException e) {
            // The relay cut the connection.
        }
    }

    private SocketChannel connectToRelay() throws IOException {
        return SocketChannel.open(UnixDomainSocketAddress.of(relay.socketPath()));
    }

    private static String readAll(SocketChannel channel) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(1024);
        while (channel.read(buffer) >= 0) {
            if (!buffer.hasRemaining()) {
                break;
            }
        }
        buffer.flip();
        return StandardCharsets.UTF_8.decode(buffer).toString();
    }

    @Test
    void relaysBothWaysAndPassesOnTheEndOfStream() throws Exception {
        relay = UnixSocketRelay.start(startTarget(Behaviour.ECHO));

        try (SocketChannel client = connectToRelay()) {
            client.write(StandardCharsets.UTF_8.encode("hello through the relay"));
            client.shutdownOutput();

            assertThat(readAll(client)).isEqualTo("hello through the relay");
        }
    }

    @Test
    void listensInAFolderOnlyItsUserCanEnterNamedAfterItsProcessAndDeletedWithItsContent() throws Exception {
        relay = UnixSocketRelay.start(startTarget(Behaviour.ECHO));
        Path relayFolder = relay.socketPath().getParent();

        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(relayFolder)))
                .isEqualTo("rwx------");
        assertThat(relay.socketPath().getFileName()).hasToString("libvirt.sock");
        assertThat(relayFolder.getFileName().toString())
                .startsWith("egress-libvirt-" + ProcessHandle.current().pid() + "-");
        Files.writeString(relayFolder.resolve("left-behind"), "stands in for another file");
        relay.close();
        assertThat(relayFolder).doesNotExist();
        relay.close();
    }

    @Test
    void foldersOfProcessesThatAreGoneAreRemovedAndOthersKept() throws Exception {
        String prefix = "egress-test-";
        Process finished = new ProcessBuilder("true").start();
        finished.waitFor();
        Path ofDeadProcess = relayFolder(prefix + finished.pid() + "-123");
        Path ofThisProcess = relayFolder(prefix + ProcessHandle.current().pid() + "-456");
        Path ofReusedPid = relayFolder(prefix + ProcessHandle.current().pid() + "-789");
        // Older than this process: the PID was another process's when the folder was made.
        Files.setLastModifiedTime(ofReusedPid, FileTime.from(Instant.parse("2001-01-01T00:00:00Z")));
        Path notOurs = relayFolder(prefix + "no-pid");
        Path otherPrefix = relayFolder("egress-other-" + finished.pid() + "-1");

        UnixSocketRelay.removeFoldersOfDeadProcesses(folder, prefix);

        assertThat(ofDeadProcess).doesNotExist();
        assertThat(ofReusedPid).doesNotExist();
        assertThat(ofThisProcess).exists();
        assertThat(notOurs).exists();
        assertThat(otherPrefix).exists();
    }

    private Path relayFolder(String name) throws IOException {
        Path created = Files.createDirectory(folder.resolve(name));
        Files.writeString(created.resolve("libvirt.sock"), "stands in for the socket");
        return created;
    }

    @Test
    void closeCutsABlockedReaderAtOnceAndRemovesTheSocket() throws Exception {
        relay = UnixSocketRelay.start(startTarget(Behaviour.SILENT));
        Path socket = relay.socketPath();
        try (SocketChannel client = connectToRelay()) {
            client.write(StandardCharsets.UTF_8.encode("a request the target never answers"));
            CompletableFuture<Integer> read = CompletableFuture.supplyAsync(() -> {
                try {
                    return client.read(ByteBuffer.allocate(16));
                } catch (IOException e) {
                    return -2;
                }
            });
            Thread.sleep(200);
            assertThat(read).isNotDone();

            long started = System.nanoTime();
            relay.close();

            assertThat(read.get(5, TimeUnit.SECONDS)).isNegative();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(500);
        }
        assertThat(relay.isOpen()).isFalse();
        assertThat(socket).doesNotExist();
        assertThat(socket.getParent()).doesNotExist();
    }

    @Test
    void isNoLongerOpenOnceTheTargetHungUp() throws Exception {
        relay = UnixSocketRelay.start(startTarget(Behaviour.HANG_UP));

        try (SocketChannel client = connectToRelay()) {
            assertThat(readAll(client)).isEmpty();
        }

        awaitClosed();
    }

    @Test
    void anUnreachableTargetClosesTheClientAndTheRelayIsNoLongerOpen() throws Exception {
        relay = UnixSocketRelay.start(folder.resolve("nothing-listens-here.sock"));

        try (SocketChannel client = connectToRelay()) {
            assertThat(readAll(client)).isEmpty();
        }

        awaitClosed();
    }

    private void awaitClosed() throws InterruptedException {
        for (int attempt = 0; attempt < 50 && relay.isOpen(); attempt++) {
            Thread.sleep(20);
        }
        assertThat(relay.isOpen()).isFalse();
    }
}

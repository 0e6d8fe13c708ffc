package dev.egressproxies.kvm.common.ssh;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Bytes through a real tunnel to a real sshd and back: exact, concurrent, half-closed, cleaned up. */
@Timeout(120)
class SshTunnelForwardingTest {
    @RegisterExtension
    static final OpenSshServer SSHD = new OpenSshServer();

    @RegisterExtension
    static final EchoSocketExtension ECHO = new EchoSocketExtension();

    private static SshTunnel open() throws SshTunnelException {
        return SshTunnel.open(SSHD.settings(TestKeys.get().client(TestKeys.Client.ED25519_OPENSSH),
                ECHO.socketPath()));
    }

    @Test
    void eightMebibytesOfRandomBytesComeBackUnchanged() throws Exception {
        byte[] sent = randomBytes(8 * 1024 * 1024, 1);
        try (SshTunnel tunnel = open();
                SocketChannel local = SocketChannel.open(UnixDomainSocketAddress.of(tunnel.localSocketPath()))) {
            assertThat(roundTrip(local, sent)).isEqualTo(sent);
        }
    }

    @Test
    void twentyConcurrentConnectionsEachGetTheirOwnBytesBack() throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(20);
        try (SshTunnel tunnel = open()) {
            List<Future<Boolean>> results = new ArrayList<>();
            for (int client = 0; client < 20; client++) {
                byte[] sent = randomBytes(256 * 1024, 100 + client);
                results.add(clients.submit(() -> {
                    try (SocketChannel local = SocketChannel.open(UnixDomainSocketAddress.of(tunnel.localSocketPath()))) {
                        return java.util.Arrays.equals(roundTrip(local, sent), sent);
                    }
                }));
            }
            for (Future<Boolean> result : results) {
                assertThat(result.get(60, TimeUnit.SECONDS)).isTrue();
            }
        } finally {
            clients.shutdownNow();
        }
    }

    @Test
    void localSocketLivesInAPrivateFolderThatCloseDeletes() throws Exception {
        SshTunnel tunnel = open();
        try {
            assertThat(tunnel.localSocketPath().getParent()).isEqualTo(tunnel.localSocketDirectory());
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(tunnel.localSocketDirectory())))
                    .isEqualTo("rwx------");
            assertThat(tunnel.localSocketPath()).exists();
        } finally {
            tunnel.close();
        }
        assertThat(tunnel.localSocketDirectory()).doesNotExist();
        assertThat(tunnel.isOpen()).isFalse();
        assertThat(tunnel.closed().toCompletableFuture().get(1, TimeUnit.SECONDS)).isEqualTo("closed by the caller");
    }

    /** Writes {@code sent} while reading the echo in this thread, then half-closes and reads to the end. */
    static byte[] roundTrip(SocketChannel local, byte[] sent) throws Exception {
        Thread writer = new Thread(() -> {
            try {
                ByteBuffer pending = ByteBuffer.wrap(sent);
                while (pending.hasRemaining()) {
                    local.write(pending);
                }
                local.shutdownOutput();
            } catch (IOException e) {
                // The reader sees the short result.
            }
        }, "test-writer");
        writer.start();
        ByteBuffer received = ByteBuffer.allocate(sent.length + 1);
        while (local.read(received) >= 0 && received.hasRemaining()) {
            // Keep reading: end of stream only comes after the echo server saw ours.
        }
        writer.join();
        received.flip();
        byte[] result = new byte[received.remaining()];
        received.get(result);
        return result;
    }

    static byte[] randomBytes(int count, long seed) {
        byte[] bytes = new byte[count];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }
}

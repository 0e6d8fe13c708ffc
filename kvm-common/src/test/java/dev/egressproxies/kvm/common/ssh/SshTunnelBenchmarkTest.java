package dev.egressproxies.kvm.common.ssh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.kvm.common.local.UnixSocketRelay;
import dev.egressproxies.kvm.common.ssh.TestKeys.Client;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.security.MessageDigest;
import java.util.Locale;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Figures for the record, printed and not asserted (beyond correctness): how long a tunnel takes
 * to open, and how fast 64 MiB cross it to an echo server and back, each direction at once.
 */
@Timeout(300)
class SshTunnelBenchmarkTest {
    private static final int OPENS = 5;
    private static final int TRANSFER_BYTES = 64 * 1024 * 1024;

    @RegisterExtension
    static final OpenSshServer SSHD = new OpenSshServer();

    private static UnixTestServer echo;

    @BeforeAll
    static void startEchoServer() throws Exception {
        echo = UnixTestServer.echo();
    }

    @AfterAll
    static void stopEchoServer() throws Exception {
        echo.close();
    }

    private static SshTunnelSettings settings(Client key) {
        return SSHD.settings(TestKeys.get().client(key), echo.socketPath().toString());
    }

    @Test
    void openingATunnel() throws Exception {
        for (Client key : new Client[] {Client.ED25519_OPENSSH, Client.RSA_PKCS1_PEM, Client.ECDSA_SEC1_PEM}) {
            SshTunnel.open(settings(key), Dials.dial()).close();
            long total = 0;
            for (int round = 0; round < OPENS; round++) {
                long started = System.nanoTime();
                UnixSocketRelay tunnel = SshTunnel.open(settings(key), Dials.dial());
                total += System.nanoTime() - started;
                tunnel.close();
            }
            System.out.printf(Locale.ROOT, "[benchmark] open tunnel with %s key: %.1f ms on average of %d%n",
                    key, total / 1e6 / OPENS, OPENS);
        }
    }

    @Test
    void sixtyFourMebibytesThereAndBack() throws Exception {
        byte[] chunk = SshTunnelForwardingTest.randomBytes(1024 * 1024, 64);
        MessageDigest sentDigest = MessageDigest.getInstance("SHA-256");
        MessageDigest receivedDigest = MessageDigest.getInstance("SHA-256");
        try (UnixSocketRelay tunnel = SshTunnel.open(settings(Client.ED25519_OPENSSH), Dials.dial());
                SocketChannel local = SocketChannel.open(UnixDomainSocketAddress.of(tunnel.socketPath()))) {
            long started = System.nanoTime();
            Thread writer = new Thread(() -> {
                try {
                    for (int sent = 0; sent < TRANSFER_BYTES; sent += chunk.length) {
                        sentDigest.update(chunk);
                        ByteBuffer pending = ByteBuffer.wrap(chunk);
                        while (pending.hasRemaining()) {
                            local.write(pending);
                        }
                    }
                    local.shutdownOutput();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, "benchmark-writer");
            writer.start();
            ByteBuffer buffer = ByteBuffer.allocate(256 * 1024);
            long received = 0;
            for (int count = local.read(buffer); count >= 0; count = local.read(buffer)) {
                receivedDigest.update(buffer.array(), 0, count);
                received += count;
                buffer.clear();
            }
            writer.join();
            double seconds = (System.nanoTime() - started) / 1e9;
            assertThat(received).isEqualTo(TRANSFER_BYTES);
            assertThat(receivedDigest.digest()).isEqualTo(sentDigest.digest());
            System.out.printf(Locale.ROOT, "[benchmark] 64 MiB through the tunnel and back: %.2f s, %.1f MiB/s"
                    + " each way%n", seconds, TRANSFER_BYTES / 1048576.0 / seconds);
        }
    }
}

package dev.egressproxies.kvm.common.ssh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.kvm.common.local.UnixSocketRelay;
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
import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.global.OpenSshHostKeysHandler;
import org.apache.sshd.common.NamedResource;
import org.apache.sshd.common.channel.RequestHandler;
import org.apache.sshd.common.session.ConnectionService;
import org.apache.sshd.core.CoreModuleProperties;
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

    private static UnixSocketRelay open() {
        return SshTunnel.open(SSHD.settings(TestKeys.get().client(TestKeys.Client.ED25519_OPENSSH),
                ECHO.socketPath()), Dials.dial());
    }

    @Test
    void eightMebibytesOfRandomBytesComeBackUnchanged() throws Exception {
        byte[] sent = randomBytes(8 * 1024 * 1024, 1);
        try (UnixSocketRelay tunnel = open();
                SocketChannel local = SocketChannel.open(UnixDomainSocketAddress.of(tunnel.socketPath()))) {
            assertThat(roundTrip(local, sent)).isEqualTo(sent);
        }
    }

    @Test
    void twentyConcurrentConnectionsEachGetTheirOwnBytesBack() throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(20);
        try (UnixSocketRelay tunnel = open()) {
            List<Future<Boolean>> results = new ArrayList<>();
            for (int client = 0; client < 20; client++) {
                byte[] sent = randomBytes(256 * 1024, 100 + client);
                results.add(clients.submit(() -> {
                    try (SocketChannel local = SocketChannel.open(UnixDomainSocketAddress.of(tunnel.socketPath()))) {
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
        UnixSocketRelay tunnel = open();
        try {
            assertThat(tunnel.socketPath().getParent().getFileName().toString())
                    .startsWith("egress-ssh-tunnel-" + ProcessHandle.current().pid() + "-");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(tunnel.socketPath().getParent())))
                    .isEqualTo("rwx------");
            assertThat(tunnel.socketPath()).exists();
        } finally {
            tunnel.close();
        }
        assertThat(tunnel.socketPath().getParent()).doesNotExist();
        assertThat(tunnel.isOpen()).isFalse();
        assertThat(tunnel.lossReason()).as("closed by the caller, not lost").isEmpty();
    }

    @Test
    void theClientOffersAesGcmFirstAndKeepsTheOtherDefaultCiphers() {
        List<String> offered;
        UnixSocketRelay tunnel = open();
        try {
            offered = SshTunnel.runningClient().orElseThrow().getCipherFactories().stream()
                    .map(NamedResource::getName).toList();
        } finally {
            tunnel.close();
        }
        List<String> defaults = SshClient.setUpDefaultClient().getCipherFactories().stream()
                .map(NamedResource::getName).toList();
        assertThat(offered).startsWith("aes128-gcm@openssh.com", "aes256-gcm@openssh.com")
                .doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(defaults);
        assertThat(SshTunnel.runningClient()).as("the last tunnel's close stops the client").isEmpty();
    }

    @Test
    void theClientTurnsOffNaglesAlgorithmSoSmallMessagesAreNotHeldBackByDelayedAcknowledgements() {
        try (UnixSocketRelay tunnel = open()) {
            // MINA applies the property to each connection's socket (Nio2Service.setSocketOptions).
            assertThat(CoreModuleProperties.TCP_NODELAY.getRequired(SshTunnel.runningClient().orElseThrow())).isTrue();
        }
    }

    @Test
    void theHostKeyAnnouncementIsAcknowledgedFirstAndStillHandledByMina() {
        try (UnixSocketRelay tunnel = open()) {
            List<RequestHandler<ConnectionService>> handlers = SshTunnel.runningClient().orElseThrow()
                    .getGlobalRequestHandlers();
            assertThat(handlers.get(0)).isInstanceOf(SshTunnel.HostKeysAcknowledgement.class);
            assertThat(handlers).hasAtLeastOneElementOfType(OpenSshHostKeysHandler.class);
        }
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

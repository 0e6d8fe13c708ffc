package dev.egressproxies.kvm.common.ssh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.egressproxies.kvm.common.local.UnixSocketRelay;
import dev.egressproxies.kvm.common.ssh.TestKeys.Client;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.sshd.client.SshClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * How a tunnel ends: the host freezes, sshd dies in the middle of a transfer, or another thread
 * closes it to abort a caller that is blocked on the hypervisor.
 */
@Timeout(60)
class SshTunnelLifecycleTest {
    private static final Duration KEEPALIVE_INTERVAL = Duration.ofMillis(300);
    private static final int KEEPALIVE_MAX_MISSED = 2;

    @RegisterExtension
    static final OpenSshServer SSHD = new OpenSshServer();

    private static UnixTestServer echo;
    private static UnixTestServer silent;

    @BeforeAll
    static void startTestServers() throws IOException {
        echo = UnixTestServer.echo();
        silent = UnixTestServer.silent();
    }

    @AfterAll
    static void stopTestServers() throws IOException {
        echo.close();
        silent.close();
    }

    @AfterEach
    void noThreadOutlivesItsTunnel() throws InterruptedException {
        assertThat(TunnelThreadsCount.awaitNone(5_000)).isEmpty();
    }

    private static UnixSocketRelay open(UnixTestServer server) {
        return SshTunnel.open(SSHD.settings(TestKeys.get().client(Client.ED25519_OPENSSH),
                        server.socketPath().toString())
                .withKeepalive(KEEPALIVE_INTERVAL, KEEPALIVE_MAX_MISSED), Dials.dial());
    }

    /** Waits up to {@code millis} for the tunnel to close itself; returns whether it did. */
    private static boolean awaitClosed(UnixSocketRelay tunnel, long millis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + millis;
        while (tunnel.isOpen() && System.currentTimeMillis() < deadline) {
            Thread.sleep(10);
        }
        return !tunnel.isOpen();
    }

    /** Waits up to {@code millis} for {@code path} to be deleted; returns whether it was. */
    private static boolean awaitGone(Path path, long millis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + millis;
        while (Files.exists(path) && System.currentTimeMillis() < deadline) {
            Thread.sleep(10);
        }
        return !Files.exists(path);
    }

    @Test
    void aFrozenHostIsNoticedByTheKeepaliveWithinAFewIntervals() throws Exception {
        try (UnixSocketRelay tunnel = open(echo)) {
            SSHD.suspend();
            try {
                long frozen = System.nanoTime();
                assertThat(awaitClosed(tunnel, 10_000)).isTrue();
                long noticedMillis = (System.nanoTime() - frozen) / 1_000_000;
                // Closed when the (maxMissed + 1)th request is due, plus a second for a busy machine.
                assertThat(noticedMillis)
                        .isLessThan(KEEPALIVE_INTERVAL.multipliedBy(KEEPALIVE_MAX_MISSED + 1).toMillis() + 1_000);
                assertThat(tunnel.lossReason()).get().asString().contains("lost", "heartbeat");
                // isOpen turns false as the close begins, on MINA's thread; the folder goes at its end.
                assertThat(awaitGone(tunnel.socketPath().getParent(), 2_000)).as("the socket's folder removed").isTrue();
            } finally {
                SSHD.resume();
            }
        }
    }

    @Test
    void sshdKilledInTheMiddleOfATransferEndsTheLocalConnectionPromptly() throws Exception {
        try (UnixSocketRelay tunnel = open(echo);
                SocketChannel local = SocketChannel.open(UnixDomainSocketAddress.of(tunnel.socketPath()))) {
            CountDownLatch flowing = new CountDownLatch(1);
            CompletableFuture<Long> endedAfterBytes = CompletableFuture.supplyAsync(() -> readUntilTheEnd(local, flowing));
            Thread writer = new Thread(() -> writeUntilFailure(local), "test-writer");
            writer.setDaemon(true);
            writer.start();
            assertThat(flowing.await(10, TimeUnit.SECONDS)).isTrue();

            SSHD.kill();
            long killed = System.nanoTime();
            endedAfterBytes.get(5, TimeUnit.SECONDS);
            assertThat((System.nanoTime() - killed) / 1_000_000).isLessThan(2_000);
            assertThat(awaitClosed(tunnel, 5_000)).isTrue();
            assertThat(tunnel.lossReason()).get().asString().contains("lost");
            writer.join(5_000);
            assertThat(writer.isAlive()).isFalse();
        } finally {
            SSHD.start();
        }
    }

    @Test
    void closingFromAnotherThreadUnblocksAReader() throws Exception {
        UnixSocketRelay tunnel = open(silent);
        try (SocketChannel local = SocketChannel.open(UnixDomainSocketAddress.of(tunnel.socketPath()))) {
            local.write(ByteBuffer.wrap("a request the host never answers".getBytes()));
            CompletableFuture<Integer> read = CompletableFuture.supplyAsync(() -> {
                try {
                    return local.read(ByteBuffer.allocate(16));
                } catch (IOException e) {
                    return -2;
                }
            });
            Thread.sleep(300);
            assertThat(read).isNotDone();

            long closing = System.nanoTime();
            Thread closer = new Thread(tunnel::close, "test-closer");
            closer.start();
            assertThat(read.get(2, TimeUnit.SECONDS)).isNegative();
            assertThat((System.nanoTime() - closing) / 1_000_000).isLessThan(1_000);
            closer.join(5_000);
        }
        assertThat(tunnel.isOpen()).isFalse();
        assertThat(tunnel.lossReason()).as("closed by the caller, not lost").isEmpty();
    }

    @Test
    void anInterruptedThreadStillReleasesEverythingAndStaysInterrupted() throws Exception {
        UnixSocketRelay tunnel = open(echo);
        CompletableFuture<Boolean> stillInterrupted = new CompletableFuture<>();
        Thread cancelled = new Thread(() -> {
            Thread.currentThread().interrupt();
            tunnel.close();
            stillInterrupted.complete(Thread.currentThread().isInterrupted());
        }, "test-cancelled-caller");
        cancelled.start();
        assertThat(stillInterrupted.get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(tunnel.socketPath().getParent()).doesNotExist();
        // The @AfterEach check then finds no relay thread and no SSH session left.
    }

    @Test
    void theClientRunsWhileAnyTunnelIsOpenAndStopsWithTheLastSoTheProcessCanExitAtOnce() throws Exception {
        UnixSocketRelay first = open(echo);
        UnixSocketRelay second = open(echo);
        SshClient client = SshTunnel.runningClient().orElseThrow();
        first.close();
        assertThat(SshTunnel.runningClient()).contains(client);
        try (SocketChannel local = SocketChannel.open(UnixDomainSocketAddress.of(second.socketPath()))) {
            byte[] sent = SshTunnelForwardingTest.randomBytes(64 * 1024, 7);
            assertThat(SshTunnelForwardingTest.roundTrip(local, sent)).isEqualTo(sent);
        }
        second.close();
        assertThat(SshTunnel.runningClient()).isEmpty();
        assertThat(client.isStarted()).as("stopped, its I/O threads gone").isFalse();

        UnixSocketRelay next = open(echo);
        try {
            assertThat(SshTunnel.runningClient()).as("a later tunnel starts a new client").isPresent()
                    .get().isNotSameAs(client);
        } finally {
            next.close();
        }
    }

    @Test
    void aTunnelWhoseLocalSocketCannotBeMadeGivesTheClientBackOnce() throws Exception {
        String temporary = System.getProperty("java.io.tmpdir");
        System.setProperty("java.io.tmpdir", temporary + "/no-such-folder-" + System.nanoTime());
        try {
            assertThatThrownBy(() -> open(echo)).hasMessageContaining("cannot create the local unix socket");
        } finally {
            System.setProperty("java.io.tmpdir", temporary);
        }
        assertThat(SshTunnel.runningClient()).isEmpty();
        // Given back twice, the count would let the first close below stop the client under the second.
        UnixSocketRelay first = open(echo);
        UnixSocketRelay second = open(echo);
        first.close();
        try (SocketChannel local = SocketChannel.open(UnixDomainSocketAddress.of(second.socketPath()))) {
            byte[] sent = SshTunnelForwardingTest.randomBytes(1024, 3);
            assertThat(SshTunnelForwardingTest.roundTrip(local, sent)).isEqualTo(sent);
        } finally {
            second.close();
        }
    }

    @Test
    void closeIsIdempotentAndTheSocketIsGoneAfterwards() throws Exception {
        UnixSocketRelay tunnel = open(echo);
        Thread other = new Thread(tunnel::close, "test-closer");
        other.start();
        tunnel.close();
        other.join(5_000);
        tunnel.close();
        assertThat(tunnel.isOpen()).isFalse();
        assertThatThrownBy(() -> SocketChannel.open(UnixDomainSocketAddress.of(tunnel.socketPath())))
                .isInstanceOf(IOException.class);
    }

    @Test
    void theTunnelStaysUsableAcrossManyConnections() throws Exception {
        try (UnixSocketRelay tunnel = open(echo)) {
            for (int round = 0; round < 50; round++) {
                byte[] sent = ("round " + round).getBytes();
                try (SocketChannel local = SocketChannel.open(UnixDomainSocketAddress.of(tunnel.socketPath()))) {
                    assertThat(SshTunnelForwardingTest.roundTrip(local, sent)).isEqualTo(sent);
                }
            }
            // Connections end asynchronously after the client's close; all of them must end.
            long deadline = System.currentTimeMillis() + 5_000;
            while (tunnelConnectionThreads() > 0 && System.currentTimeMillis() < deadline) {
                Thread.sleep(20);
            }
            assertThat(tunnelConnectionThreads()).isZero();
        }
    }

    private static long tunnelConnectionThreads() {
        return TunnelThreadsCount.names().stream().filter(name -> name.contains("-to-")).count();
    }

    private static long readUntilTheEnd(SocketChannel local, CountDownLatch flowing) {
        ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
        long total = 0;
        try {
            for (int count = local.read(buffer); count >= 0; count = local.read(buffer)) {
                total += count;
                flowing.countDown();
                buffer.clear();
            }
        } catch (IOException e) {
            // An error is as good as end of stream here: the point is not hanging.
        }
        return total;
    }

    private static void writeUntilFailure(SocketChannel local) {
        ByteBuffer chunk = ByteBuffer.wrap(SshTunnelForwardingTest.randomBytes(64 * 1024, 7));
        try {
            while (true) {
                chunk.rewind();
                while (chunk.hasRemaining()) {
                    local.write(chunk);
                }
            }
        } catch (IOException e) {
            // Expected once the tunnel closes the local connection.
        }
    }
}

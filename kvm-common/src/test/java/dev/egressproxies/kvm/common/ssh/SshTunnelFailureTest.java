package dev.egressproxies.kvm.common.ssh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.local.UnixSocketRelay;
import dev.egressproxies.kvm.common.ssh.TestKeys.Client;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** How opening a tunnel fails when the host, its sshd or its socket does not cooperate. */
@Timeout(60)
class SshTunnelFailureTest {
    @RegisterExtension
    static final OpenSshServer SSHD = new OpenSshServer();

    @RegisterExtension
    static final EchoSocketExtension ECHO = new EchoSocketExtension();

    private static Path key() {
        return TestKeys.get().client(Client.ED25519_OPENSSH);
    }

    private static SshTunnelSettings settingsForPort(int port, Duration handshakeTimeout) {
        return SshTunnelSettings.of(OpenSshServer.HOST, port, SSHD.user(), key(),
                HostKeyPolicy.insecureIgnoreHostKey(), ECHO.socketPath()).withHandshakeTimeout(handshakeTimeout);
    }

    @Test
    void aHostThatAcceptsButNeverSpeaksTimesOut() throws Exception {
        try (SilentTcpListener silent = new SilentTcpListener()) {
            long started = System.nanoTime();
            ProviderException failure = catchThrowableOfType(ProviderException.class,
                    () -> SshTunnel.open(settingsForPort(silent.port(), Duration.ofSeconds(1)), Dials.dial()));
            long elapsedMillis = (System.nanoTime() - started) / 1_000_000;
            assertThat(failure.kind()).isEqualTo(ErrorKind.TRANSIENT);
            assertThat(failure.getMessage()).contains(OpenSshServer.HOST + ":" + silent.port(), "did not complete", "PT1S");
            assertThat(elapsedMillis).isBetween(900L, 3_000L);
        }
    }

    @Test
    void aPortWithoutSshdIsUnreachable() throws Exception {
        int closedPort = OpenSshServer.freePort();
        ProviderException failure = catchThrowableOfType(ProviderException.class,
                () -> SshTunnel.open(settingsForPort(closedPort, Duration.ofSeconds(5)), Dials.dial()));
        assertThat(failure.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(failure.getMessage()).contains("cannot reach sshd at " + OpenSshServer.HOST + ":" + closedPort);
    }

    @Test
    void aThreadInterruptedWhileOpeningGetsControlBackAtOnce() throws Exception {
        try (SilentTcpListener silent = new SilentTcpListener()) {
            CompletableFuture<ProviderException> failure = new CompletableFuture<>();
            AtomicBoolean stillInterrupted = new AtomicBoolean();
            Thread opener = new Thread(() -> {
                try {
                    SshTunnel.open(settingsForPort(silent.port(), Duration.ofSeconds(30)), Dials.dial()).close();
                    failure.complete(null);
                } catch (ProviderException e) {
                    stillInterrupted.set(Thread.currentThread().isInterrupted());
                    failure.complete(e);
                }
            });
            opener.start();
            silent.awaitConnection();
            long interrupted = System.nanoTime();
            opener.interrupt();
            ProviderException result = failure.get(5, TimeUnit.SECONDS);
            assertThat((System.nanoTime() - interrupted) / 1_000_000).isLessThan(1_000);
            assertThat(result.kind()).isEqualTo(ErrorKind.TRANSIENT);
            assertThat(result.getMessage()).contains("interrupted while connecting");
            assertThat(stillInterrupted).isTrue();
        }
    }

    @Test
    void aRemoteSocketNobodyListensOnIsTransient() {
        SshTunnelSettings settings = SSHD.settings(key(), "/nonexistent/libvirt-sock");
        ProviderException failure = catchThrowableOfType(ProviderException.class, () -> SshTunnel.open(settings, Dials.dial()));
        assertThat(failure.kind()).isEqualTo(ErrorKind.TRANSIENT);
        // The channel's refusal does not say why; a command run on the host finds the socket missing.
        assertThat(failure.getMessage()).contains("there is no socket at /nonexistent/libvirt-sock", "start libvirtd");
    }

    @Test
    void sshdThatForbidsSocketForwardingIsGoneAroundThroughNcAsLibvirtDoes() throws Exception {
        try (OpenSshServer strict = new OpenSshServer().withOption("AllowStreamLocalForwarding", "no")) {
            strict.start();
            try (UnixSocketRelay tunnel = SshTunnel.open(strict.settings(key(), ECHO.socketPath()), Dials.dial());
                    SocketChannel local = SocketChannel.open(UnixDomainSocketAddress.of(tunnel.socketPath()))) {
                assertThat(tunnel.route()).contains("exec 'nc -U '" + ECHO.socketPath() + "''",
                        "sshd forwards no unix sockets");
                local.write(ByteBuffer.wrap("hello".getBytes(StandardCharsets.US_ASCII)));
                ByteBuffer echoed = ByteBuffer.allocate(5);
                while (echoed.hasRemaining() && local.read(echoed) >= 0) {
                    // Until the five bytes are back.
                }
                assertThat(new String(echoed.array(), StandardCharsets.US_ASCII)).isEqualTo("hello");
            }
            assertThat(strict.log()).contains("refused streamlocal port forward");
        }
    }

    @Test
    void sshdThatForbidsSocketForwardingAndCommandsIsReportedWithTheSettingToChange() throws Exception {
        try (OpenSshServer strict = new OpenSshServer().withOption("AllowStreamLocalForwarding", "no")
                .withOption("ForceCommand", "/bin/false")) {
            strict.start();
            ProviderException failure = catchThrowableOfType(ProviderException.class,
                    () -> SshTunnel.open(strict.settings(key(), ECHO.socketPath()), Dials.dial()));
            // OpenSSH answers exactly as for a socket nobody listens on, so the reason is the same.
            assertThat(failure.kind()).isEqualTo(ErrorKind.TRANSIENT);
            assertThat(failure.getMessage()).contains("could not connect to", "AllowStreamLocalForwarding yes");
            assertThat(strict.log()).contains("refused streamlocal port forward");
        }
    }

    /** A TCP listener on 127.0.0.1 that accepts connections and never sends a byte. */
    static final class SilentTcpListener implements AutoCloseable {
        private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getByName(OpenSshServer.HOST));
        private final List<Socket> accepted = new ArrayList<>();
        private final CompletableFuture<Void> firstConnection = new CompletableFuture<>();
        private final Thread acceptLoop = new Thread(this::acceptConnections, "silent-tcp-listener");

        SilentTcpListener() throws IOException {
            acceptLoop.setDaemon(true);
            acceptLoop.start();
        }

        int port() {
            return server.getLocalPort();
        }

        void awaitConnection() throws Exception {
            firstConnection.get(5, TimeUnit.SECONDS);
        }

        private void acceptConnections() {
            while (!server.isClosed()) {
                try {
                    Socket socket = server.accept();
                    synchronized (accepted) {
                        accepted.add(socket);
                    }
                    firstConnection.complete(null);
                } catch (IOException e) {
                    return;
                }
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
            synchronized (accepted) {
                for (Socket socket : accepted) {
                    socket.close();
                }
            }
        }
    }
}

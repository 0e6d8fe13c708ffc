package dev.egressproxies.kvm.common.ssh;

import dev.egressproxies.kvm.common.ssh.SshTunnelException.Reason;
import java.io.IOException;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.session.SessionListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An SSH connection to one hypervisor that forwards a unix socket of the host (libvirtd's) to a
 * private local unix socket, the way {@code ssh -L local.sock:/var/run/libvirt/libvirt-sock} does.
 *
 * <p>{@link #open} reads the key and known_hosts files, connects, checks the host key,
 * authenticates and checks that sshd will forward to the socket, all within the handshake timeout.
 * Local clients (libvirt, with {@code qemu+unix:///system?socket=}{@link #localSocketPath()}) then
 * connect to the local socket; each connection is carried through its own SSH channel.
 *
 * <p>The tunnel closes itself when the SSH connection is lost: keepalive requests that go
 * unanswered, sshd closing, a network error. {@link #closed()} completes then, so a pool can drop
 * and redial it. {@link #close()} may be called from any thread at any time, and is how a caller
 * aborts a call that hangs on the hypervisor: local connections are closed first, so whoever is
 * blocked reading them sees end of stream at once.
 *
 * <p>Thread safety: all methods may be called concurrently.
 */
public final class SshTunnel implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SshTunnel.class);
    /** Bounds how long {@link #close()} waits for forwarding threads to end before going on. */
    private static final Duration THREAD_END_WAIT = Duration.ofSeconds(2);

    private final SshTunnelSettings settings;
    private final SshClient client;
    private final ClientSession session;
    private final UnixSocketForwarder forwarder;
    private final TunnelThreads threads;
    private final AtomicBoolean closing = new AtomicBoolean();
    private final AtomicReference<Throwable> connectionFailure = new AtomicReference<>();
    private final CompletableFuture<String> closed = new CompletableFuture<>();
    private volatile boolean closedByCaller;

    private SshTunnel(SshTunnelSettings settings, SshClient client, ClientSession session,
            UnixSocketForwarder forwarder, TunnelThreads threads) {
        this.settings = settings;
        this.client = client;
        this.session = session;
        this.forwarder = forwarder;
        this.threads = threads;
    }

    /**
     * Opens a tunnel, reading the private key and known_hosts files now (not earlier), so a file
     * that appears or is fixed later heals the next attempt.
     *
     * @throws SshTunnelException when any step fails; {@link SshTunnelException#isPermanent()}
     *     says whether retrying with the same files and settings can help. When the calling thread
     *     is interrupted, the reason is {@link Reason#INTERRUPTED} and the interrupt flag stays set.
     */
    public static SshTunnel open(SshTunnelSettings settings) throws SshTunnelException {
        long started = System.nanoTime();
        List<KeyPair> keyPairs = PrivateKeyFile.load(settings.privateKeyFile());
        HostKeyCheck hostKeyCheck = HostKeyCheck.forPolicy(settings.hostKeyPolicy(), settings.host(), settings.port());
        SshClient client = SshClients.create(settings, hostKeyCheck);
        TunnelThreads threads = new TunnelThreads(settings.destination());
        ClientSession session = null;
        try {
            client.start();
            Handshake handshake = new Handshake(settings, hostKeyCheck);
            session = handshake.perform(client, keyPairs);
            RemoteSocket remote = new RemoteSocket(
                    session, settings.remoteSocketPath(), settings.destination(), settings.handshakeTimeout());
            // The probe shares the handshake's budget: a host that accepts SSH but never answers
            // the channel request must not stretch the dial beyond its timeout.
            new RemoteSocket(session, settings.remoteSocketPath(), settings.destination(), handshake.remaining())
                    .probe();
            SshTunnel tunnel = start(settings, client, session, remote, threads);
            LOG.debug("SSH tunnel to {} open: {} forwards to {} (took {} ms)", settings.destination(),
                    tunnel.localSocketPath(), settings.remoteSocketPath(), (System.nanoTime() - started) / 1_000_000);
            return tunnel;
        } catch (SshTunnelException | RuntimeException e) {
            if (session != null) {
                session.close(true);
            }
            stopUninterruptibly(client);
            throw e;
        }
    }

    private static SshTunnel start(SshTunnelSettings settings, SshClient client, ClientSession session,
            RemoteSocket remote, TunnelThreads threads) throws SshTunnelException {
        AtomicReference<SshTunnel> created = new AtomicReference<>();
        UnixSocketForwarder forwarder;
        try {
            forwarder = UnixSocketForwarder.start(remote, threads, () -> {
                SshTunnel tunnel = created.get();
                if (tunnel != null) {
                    tunnel.closeInBackground("the local socket stopped accepting connections");
                }
            });
        } catch (IOException e) {
            throw new SshTunnelException(Reason.LOCAL_SOCKET_FAILED, "cannot create the local unix socket for the"
                    + " tunnel to " + settings.destination() + " in " + System.getProperty("java.io.tmpdir") + ": " + e
                    + "; check that the temporary folder is writable", e);
        }
        SshTunnel tunnel = new SshTunnel(settings, client, session, forwarder, threads);
        created.set(tunnel);
        session.addSessionListener(new SessionListener() {
            @Override
            public void sessionException(Session failed, Throwable failure) {
                tunnel.connectionFailure.compareAndSet(null, failure);
            }
        });
        // Runs on a MINA thread (or here, when the session is already closed). Stopping the client
        // waits for MINA's threads to end, so that must happen on a thread of our own.
        session.addCloseFutureListener(future -> tunnel.closeInBackground(tunnel.lostReason()));
        return tunnel;
    }

    /** Returns the local unix socket that forwards to the host's socket. */
    public Path localSocketPath() {
        return forwarder.socketPath();
    }

    /** Returns the private folder (mode 0700) that holds {@link #localSocketPath()}; deleted on close. */
    public Path localSocketDirectory() {
        return forwarder.directory();
    }

    /** Returns the settings the tunnel was opened with. */
    public SshTunnelSettings settings() {
        return settings;
    }

    /** Returns true until the tunnel starts closing, whether by {@link #close()} or by losing the connection. */
    public boolean isOpen() {
        return !closing.get() && session.isOpen();
    }

    /**
     * Why the SSH connection ended without {@link #close()}: a sentence naming the server, what
     * happened and what to check; empty while the connection is open, and once the caller closed it.
     */
    public Optional<String> lossReason() {
        if (closedByCaller || session.isOpen()) {
            return Optional.empty();
        }
        return Optional.of(lostReason() + " (sshd closed it or died; libvirtd was not reached): check that sshd there is"
                + " running and keeps its connections (its log, such as 'journalctl -u ssh'; MaxStartups, MaxSessions)"
                + " and that nothing on the way cuts them, then retry");
    }

    /**
     * Returns a stage that completes, with a sentence saying why, once the tunnel is closed and its
     * resources are released. It never completes exceptionally.
     */
    public CompletionStage<String> closed() {
        return closed.minimalCompletionStage();
    }

    /**
     * Closes the local socket and every forwarded connection, then the SSH connection and the
     * client, and deletes the socket's folder. Idempotent; callable from any thread, including
     * while another thread is blocked on the local socket (it then sees end of stream). Returns
     * once everything is released, or after a bounded wait when a thread refuses to end.
     */
    @Override
    public void close() {
        closedByCaller = true;
        closeNow("closed by the caller", false);
    }

    @Override
    public String toString() {
        return "SshTunnel[" + settings.destination() + ":" + settings.remoteSocketPath() + " at "
                + forwarder.socketPath() + (isOpen() ? "" : ", closed") + "]";
    }

    private String lostReason() {
        Throwable failure = connectionFailure.get();
        return "the SSH connection to " + settings.destination() + " was lost"
                + (failure == null ? "" : ": " + failure.getMessage());
    }

    /** Closes on a new thread: the tunnel was lost, and this runs on a thread that must not wait. */
    private void closeInBackground(String reason) {
        if (!closing.get()) {
            threads.start("close", () -> closeNow(reason, true));
        }
    }

    private void closeNow(String reason, boolean lost) {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        // An interrupted caller (a cancelled deadline) must still release everything: the waits
        // below run with the flag cleared, and the flag is restored at the end.
        boolean interrupted = Thread.interrupted();
        try {
            forwarder.close(System.nanoTime() + THREAD_END_WAIT.toNanos());
        } catch (InterruptedException e) {
            interrupted = true;
        }
        session.close(true);
        interrupted |= stopUninterruptibly(client);
        if (lost) {
            LOG.warn("SSH tunnel {} closed: {}", settings.destination(), reason);
        } else {
            LOG.debug("SSH tunnel {} closed: {}", settings.destination(), reason);
        }
        closed.complete(reason);
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Stops {@code client} and waits for its threads, which MINA skips when the calling thread is
     * interrupted; returns whether the thread was interrupted, leaving its flag as it was.
     */
    private static boolean stopUninterruptibly(SshClient client) {
        boolean interrupted = Thread.interrupted();
        try {
            client.stop();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        return interrupted;
    }
}

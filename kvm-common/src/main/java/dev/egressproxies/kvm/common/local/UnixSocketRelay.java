package dev.egressproxies.kvm.common.local;

import dev.egressproxies.kvm.common.host.HostShell;
import dev.egressproxies.kvm.common.host.LibvirtTransport;
import java.io.Closeable;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A private local unix socket whose every connection is piped to a far end that an {@link Upstream}
 * opens: a channel through an SSH session, or another unix socket on this machine.
 */
public final class UnixSocketRelay implements LibvirtTransport {
    public static final String THREAD_PREFIX = "egress-relay-";
    private static final Logger LOG = LoggerFactory.getLogger(UnixSocketRelay.class);
    private static final String SOCKET_NAME = "libvirt.sock";
    /** Toward the far end several SSH packets per read, so a bulk upload costs fewer reads and flushes. */
    private static final int TO_FAR_END_BYTES = 256 * 1024;
    /** libvirt's replies are at most a few hundred KiB; this moves most in one or two reads. */
    private static final int TO_CLIENT_BYTES = 64 * 1024;
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");
    private static final Pattern OWNED = Pattern.compile("(\\d+)-\\d+");
    private static final AtomicInteger RELAY_NUMBERS = new AtomicInteger();
    // Process-wide: the JVM's exit is one event for all folders; dead processes' folders are swept once per prefix.
    private static final Set<Path> OPEN_FOLDERS = ConcurrentHashMap.newKeySet();
    private static final Set<String> SWEPT_PREFIXES = ConcurrentHashMap.newKeySet();

    static {
        try {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> OPEN_FOLDERS.forEach(UnixSocketRelay::deleteQuietly),
                    "egress-socket-folder-cleanup"));
        } catch (IllegalStateException shuttingDown) {
            // Loaded during the JVM's exit: close() is then the only cleanup.
        }
    }

    /** Opens the far end of each connection the relay accepts. */
    public interface Upstream {
        /** Opens the far end of one connection; runs on that connection's own thread, so it may wait. */
        FarEnd connect() throws IOException;

        /** Releases what carries the far ends (an SSH session); called once, when the relay closes. */
        default void close() {
        }

        /** Why what carries the far ends is gone, if it is: asked when a connection ended on its own. */
        default Optional<String> lossReason() {
            return Optional.empty();
        }

        /** How the far ends are reached, for {@code check}. */
        String route();

        /** The user the daemon sees the connections as: the SSH login, or this process's user. */
        default String login() {
            return System.getProperty("user.name");
        }

        /** Runs commands on the host the far ends are on, when an SSH session carries them. */
        default Optional<HostShell> shell() {
            return Optional.empty();
        }
    }

    /** The far end of one connection: bytes both ways, and a half-close of output. */
    public interface FarEnd extends Closeable {
        /** Reads into {@code buffer}; returns -1 at end of stream. */
        int read(ByteBuffer buffer) throws IOException;

        /** Writes all of {@code buffer}. */
        void write(ByteBuffer buffer) throws IOException;

        /** Sends end of stream, keeping the other direction open. */
        void shutdownOutput() throws IOException;
    }

    private final Path folder;
    private final ServerSocketChannel listener;
    private final Upstream upstream;
    private final String name = THREAD_PREFIX + RELAY_NUMBERS.incrementAndGet();
    private final Set<Relayed> connections = ConcurrentHashMap.newKeySet();
    private final AtomicInteger connectionNumbers = new AtomicInteger();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Set when a connection ended on its own: libvirt uses one for a link's whole life. */
    private volatile boolean connectionLost;
    private volatile String lossReason;

    private UnixSocketRelay(Path folder, ServerSocketChannel listener, Upstream upstream) {
        this.folder = folder;
        this.listener = listener;
        this.upstream = upstream;
    }

    /** Starts a relay to the unix socket at {@code target}, in a new folder {@code egress-libvirt-PID-random}. */
    public static UnixSocketRelay start(Path target) throws IOException {
        return start("egress-libvirt-", new Upstream() {
            @Override
            public FarEnd connect() throws IOException {
                return new SocketEnd(SocketChannel.open(UnixDomainSocketAddress.of(target)));
            }

            @Override
            public String route() {
                return "the local socket " + target;
            }
        });
    }

    /**
     * Starts a relay to {@code upstream} in a new private folder {@code folderPrefix + PID + "-" + random};
     * on failure {@code upstream} is closed.
     */
    public static UnixSocketRelay start(String folderPrefix, Upstream upstream) throws IOException {
        Path folder = null;
        ServerSocketChannel listener = null;
        try {
            folder = createFolder(folderPrefix);
            listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            listener.bind(UnixDomainSocketAddress.of(folder.resolve(SOCKET_NAME)));
        } catch (IOException | RuntimeException e) {
            if (listener != null) {
                listener.close();
            }
            if (folder != null) {
                deleteQuietly(folder);
            }
            upstream.close();
            throw e;
        }
        UnixSocketRelay relay = new UnixSocketRelay(folder, listener, upstream);
        startThread(relay.name + "-accept", relay::acceptConnections);
        return relay;
    }

    @Override
    public Path socketPath() {
        return folder.resolve(SOCKET_NAME);
    }

    @Override
    public String route() {
        return upstream.route();
    }

    /** How many connections are being relayed right now. */
    public int connectionCount() {
        return connections.size();
    }

    /** False once closed, and once a connection ended on its own (the daemon hung up or restarted). */
    @Override
    public boolean isOpen() {
        return !closed.get() && !connectionLost;
    }

    @Override
    public String login() {
        return upstream.login();
    }

    @Override
    public Optional<HostShell> shell() {
        return upstream.shell();
    }

    @Override
    public Optional<String> lossReason() {
        String reason = lossReason;
        // A connection can end before the upstream's own notice of its loss arrives (sshd died).
        return reason == null && connectionLost ? upstream.lossReason() : Optional.ofNullable(reason);
    }

    /** Closes the relay because what carries it is gone; {@link #lossReason()} then says {@code reason}. */
    public void lose(String reason) {
        if (!closed.get()) {
            lossReason = reason;
            LOG.warn("{} closed: {}", this, reason);
            close();
        }
    }

    /** Closes the socket, every connection and the upstream, and deletes the folder; idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        closeQuietly(listener);
        connections.forEach(Relayed::close);
        deleteQuietly(folder);
        upstream.close();
    }

    @Override
    public String toString() {
        return "UnixSocketRelay[" + socketPath() + "]";
    }

    private void acceptConnections() {
        while (!closed.get()) {
            SocketChannel client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                // Closed, or failed for good (out of descriptors): a closed transport makes the pool redial.
                close();
                return;
            }
            Relayed connection = new Relayed(new SocketEnd(client), name + "-" + connectionNumbers.incrementAndGet());
            connections.add(connection);
            if (closed.get()) {
                // close() may have run between accept and add and missed this one.
                connection.close();
                return;
            }
            startThread(connection.label + "-to-client", connection::connectAndPump);
        }
    }

    private static void startThread(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        // A pump stuck on a misbehaving peer must never keep the process alive.
        thread.setDaemon(true);
        thread.start();
    }

    /** One accepted connection and its far end, with a thread per direction. */
    private final class Relayed {
        private final FarEnd client;
        private final String label;
        private final AtomicInteger directionsEnded = new AtomicInteger();
        private final AtomicBoolean done = new AtomicBoolean();
        private volatile FarEnd far;

        Relayed(FarEnd client, String label) {
            this.client = client;
            this.label = label;
        }

        /** Opens the far end here, not in the accept loop, which must not wait for sshd. */
        void connectAndPump() {
            FarEnd opened;
            try {
                opened = upstream.connect();
            } catch (IOException | RuntimeException e) {
                // The client sees its connection closed at once; the relay is no good any more.
                LOG.warn("{}: cannot open the far end of a connection: {}", UnixSocketRelay.this, e.getMessage());
                close();
                return;
            }
            far = opened;
            if (done.get()) {
                // close() ran while the far end was being opened and could not see it.
                closeQuietly(opened);
                return;
            }
            startThread(label + "-to-far-end", () -> pump(client, opened, TO_FAR_END_BYTES));
            pump(opened, client, TO_CLIENT_BYTES);
        }

        void close() {
            if (done.compareAndSet(false, true)) {
                closeQuietly(client);
                FarEnd opened = far;
                if (opened != null) {
                    closeQuietly(opened);
                }
                connections.remove(this);
                if (!closed.get()) {
                    connectionLost = true;
                }
            }
        }

        private void pump(FarEnd from, FarEnd to, int bufferBytes) {
            ByteBuffer buffer = ByteBuffer.allocate(bufferBytes);
            try {
                while (from.read(buffer) >= 0) {
                    buffer.flip();
                    to.write(buffer);
                    buffer.clear();
                }
                to.shutdownOutput();
            } catch (IOException e) {
                // Either side failed, or close() cut them: nothing more can be relayed.
                close();
                return;
            }
            if (directionsEnded.incrementAndGet() == 2) {
                close();
            }
        }
    }

    private record SocketEnd(SocketChannel socket) implements FarEnd {
        @Override
        public int read(ByteBuffer buffer) throws IOException {
            return socket.read(buffer);
        }

        @Override
        public void write(ByteBuffer buffer) throws IOException {
            while (buffer.hasRemaining()) {
                socket.write(buffer);
            }
        }

        @Override
        public void shutdownOutput() throws IOException {
            socket.shutdownOutput();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    /** Creates a folder of mode 0700 for this process; the first call per prefix sweeps dead processes' folders. */
    private static Path createFolder(String prefix) throws IOException {
        Path temporary = Path.of(System.getProperty("java.io.tmpdir"));
        if (SWEPT_PREFIXES.add(prefix)) {
            removeFoldersOfDeadProcesses(temporary, prefix);
        }
        Path folder = Files.createTempDirectory(temporary, prefix + ProcessHandle.current().pid() + "-",
                PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        OPEN_FOLDERS.add(folder);
        try {
            // createTempDirectory applies the mode through the umask; make sure it is exactly 0700.
            Files.setPosixFilePermissions(folder, OWNER_ONLY);
        } catch (IOException | RuntimeException e) {
            deleteQuietly(folder);
            throw e;
        }
        return folder;
    }

    /** Removes the folders {@code prefix + PID + "-" + random} whose process is gone or whose PID was reused. */
    static void removeFoldersOfDeadProcesses(Path temporary, String prefix) {
        try (DirectoryStream<Path> candidates = Files.newDirectoryStream(temporary, prefix + "*")) {
            for (Path candidate : candidates) {
                Matcher owner = OWNED.matcher(candidate.getFileName().toString().substring(prefix.length()));
                if (owner.matches() && Files.isDirectory(candidate, LinkOption.NOFOLLOW_LINKS)
                        && !ownerAlive(Long.parseLong(owner.group(1)), candidate)) {
                    deleteQuietly(candidate);
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("Could not look for socket folders of processes that are gone in {}: {}", temporary, e.toString());
        }
    }

    private static boolean ownerAlive(long pid, Path folder) throws IOException {
        Optional<ProcessHandle> process = ProcessHandle.of(pid);
        if (process.isEmpty()) {
            return false;
        }
        FileTime changed = Files.getLastModifiedTime(folder, LinkOption.NOFOLLOW_LINKS);
        // Unknown start time: assume alive, the folder is then left (harmless) rather than taken.
        return process.get().info().startInstant().map(started -> !started.isAfter(changed.toInstant())).orElse(true);
    }

    /** Deletes {@code folder} and its files; a folder holding a folder is not one of ours and is left. */
    private static void deleteQuietly(Path folder) {
        try {
            if (Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
                try (DirectoryStream<Path> children = Files.newDirectoryStream(folder)) {
                    for (Path child : children) {
                        if (Files.isDirectory(child, LinkOption.NOFOLLOW_LINKS)) {
                            throw new IOException(folder + " holds a folder, so it is no socket folder of ours");
                        }
                        Files.deleteIfExists(child);
                    }
                }
                Files.deleteIfExists(folder);
            }
            OPEN_FOLDERS.remove(folder);
        } catch (IOException | RuntimeException e) {
            // Harmless (mode 0700): the exit hook or the next process's sweep removes it.
            LOG.debug("Could not delete the socket folder {}: {}", folder, e.toString());
        }
    }

    private static void closeQuietly(Closeable closeable) {
        try {
            closeable.close();
        } catch (IOException e) {
            // Closing is all that is left to do with it.
        }
    }
}

package dev.egressproxies.runtime.serve;

import dev.egressproxies.api.Provider;
import dev.egressproxies.runtime.apply.DesiredState;
import dev.egressproxies.runtime.apply.ProxySetLoader;
import dev.egressproxies.runtime.config.ConfigException;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The desired-set file that {@code serve} keeps in force: read and checked whole by
 * {@code apply}'s {@link ProxySetLoader}, and watched for edits. The folder is watched rather than
 * the file, because editors and config managers replace a file by renaming a new one over it.
 */
final class DesiredSetFile implements DesiredSource {
    /** Edits that arrive within this time of each other are read once, after the last. */
    static final Duration DEBOUNCE = Duration.ofMillis(300);
    private static final int SHORT_REVISION = 12;

    private final Path file;
    private final Function<String, Optional<Provider>> entries;
    private final Clock clock;
    private WatchService watcher;

    DesiredSetFile(Path file, Function<String, Optional<Provider>> entries, Clock clock) {
        this.file = file.toAbsolutePath().normalize();
        this.entries = entries;
        this.clock = clock;
    }

    /** The file's path. */
    Path path() {
        return file;
    }

    @Override
    public String location() {
        return file.toString();
    }

    @Override
    public boolean isFile() {
        return true;
    }

    /**
     * {@inheritDoc} The revision is {@code sha256:} and the first hex digits of the file's digest.
     */
    @Override
    public Loaded load() {
        Instant at = clock.instant();
        String revision = revision();
        DesiredState state = new ProxySetLoader().load(file, entries);
        return new Loaded(state, revision, at);
    }

    @Override
    public String revision() {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
            return "sha256:" + HexFormat.of().formatHex(digest).substring(0, SHORT_REVISION);
        } catch (IOException unreadable) {
            return "";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** {@inheritDoc} A burst of events (an editor's save) calls it once, after the last. */
    @Override
    public void watch(Runnable onEdit) throws IOException {
        Path folder = file.getParent();
        watcher = FileSystems.getDefault().newWatchService();
        folder.register(watcher, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY,
                StandardWatchEventKinds.ENTRY_DELETE);
        WatchService service = watcher;
        Thread thread = new Thread(() -> watchLoop(service, onEdit), "serve-desired-watch");
        thread.setDaemon(true);
        thread.start();
    }

    private void watchLoop(WatchService service, Runnable onEdit) {
        try {
            while (true) {
                WatchKey key = service.take();
                boolean ours = concernsFile(key);
                // Gather the rest of the burst: an editor's save is several events.
                WatchKey more;
                while ((more = service.poll(DEBOUNCE.toMillis(), TimeUnit.MILLISECONDS)) != null) {
                    ours |= concernsFile(more);
                }
                if (ours) {
                    onEdit.run();
                }
            }
        } catch (InterruptedException | ClosedWatchServiceException stopped) {
            // closed: the service stops
        }
    }

    private boolean concernsFile(WatchKey key) {
        boolean ours = false;
        for (WatchEvent<?> event : key.pollEvents()) {
            ours |= event.kind() == StandardWatchEventKinds.OVERFLOW
                    || file.getFileName().equals(event.context());
        }
        key.reset();
        return ours;
    }

    @Override
    public void close() throws IOException {
        if (watcher != null) {
            watcher.close();
        }
    }
}

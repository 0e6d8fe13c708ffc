package dev.egressproxies.kvm.common.local;

import java.io.IOException;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fresh folder, readable and writable by this user only (mode 0700), in the system's temporary
 * folder, that holds a local unix socket: an SSH tunnel's, or a {@link UnixSocketRelay}'s.
 *
 * <p>The socket gives full control of the hypervisor, and a socket file's own mode is not honoured
 * everywhere, so access is limited by the folder it lives in. The folder is created with its mode
 * in one step, so there is no moment in which others could open it.
 *
 * <p>No folder outlives its process: {@link #close()} deletes it; folders still open when the JVM
 * exits (a short-lived {@code egressctl} closes its connections in the background and may exit
 * first) are deleted by a shutdown hook; and the name, {@code PREFIX + PID + "-" + random}, names the
 * owning process, so the first folder a process creates with a prefix removes the folders of that
 * prefix whose process is gone (killed, crashed), on this machine.
 */
public final class PrivateSocketDirectory implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PrivateSocketDirectory.class);
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");
    private static final Pattern OWNED = Pattern.compile("(\\d+)-\\d+");
    /*
     * Process-wide by nature: the JVM's exit is one event for all folders, and the sweep of dead
     * processes' folders is needed once per prefix and process.
     */
    private static final Set<Path> OPEN = ConcurrentHashMap.newKeySet();
    private static final Set<String> SWEPT_PREFIXES = ConcurrentHashMap.newKeySet();
    private static final Thread EXIT_CLEANUP = new Thread(PrivateSocketDirectory::deleteOpenFolders,
            "egress-socket-folder-cleanup");

    static {
        try {
            Runtime.getRuntime().addShutdownHook(EXIT_CLEANUP);
        } catch (IllegalStateException shuttingDown) {
            // Created during the JVM's exit: close() is then the only cleanup, as before.
        }
    }

    private final Path directory;

    private PrivateSocketDirectory(Path directory) {
        this.directory = directory;
    }

    /**
     * Creates a new private folder named {@code prefix + PID + "-" + random} in the system's
     * temporary folder; the first call with a prefix first removes that prefix's folders whose
     * process is gone.
     */
    public static PrivateSocketDirectory create(String prefix) throws IOException {
        Path temporary = Path.of(System.getProperty("java.io.tmpdir"));
        if (SWEPT_PREFIXES.add(prefix)) {
            removeFoldersOfDeadProcesses(temporary, prefix);
        }
        Path directory = Files.createTempDirectory(temporary, prefix + ProcessHandle.current().pid() + "-",
                PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        OPEN.add(directory);
        // createTempDirectory applies the mode through the umask; make sure it is exactly 0700.
        try {
            Files.setPosixFilePermissions(directory, OWNER_ONLY);
        } catch (IOException | RuntimeException e) {
            new PrivateSocketDirectory(directory).close();
            throw e;
        }
        return new PrivateSocketDirectory(directory);
    }

    /** Returns the folder. */
    public Path path() {
        return directory;
    }

    /** Returns the path of {@code name} in the folder. */
    public Path resolve(String name) {
        return directory.resolve(name);
    }

    /** Deletes the folder and everything in it (just the socket); safe to call more than once. */
    @Override
    public void close() throws IOException {
        deleteFolder(directory);
        OPEN.remove(directory);
    }

    /**
     * Removes the folders in {@code temporary} named {@code prefix + PID + "-" + random} whose process
     * is gone: no process has that PID, or the one that has it started after the folder was last
     * changed (the PID was reused). A folder that cannot be removed (another user's) is left.
     */
    static void removeFoldersOfDeadProcesses(Path temporary, String prefix) {
        try (DirectoryStream<Path> candidates = Files.newDirectoryStream(temporary, prefix + "*")) {
            for (Path candidate : candidates) {
                Matcher owner = OWNED.matcher(candidate.getFileName().toString().substring(prefix.length()));
                if (owner.matches() && Files.isDirectory(candidate, LinkOption.NOFOLLOW_LINKS)
                        && !ownerAlive(Long.parseLong(owner.group(1)), candidate)) {
                    try {
                        deleteFolder(candidate);
                        LOG.debug("Removed {}: the process that made it is gone", candidate);
                    } catch (IOException e) {
                        LOG.debug("Could not remove {}, left behind by a process that is gone: {}", candidate,
                                e.toString());
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("Could not look for socket folders of processes that are gone in {}: {}", temporary,
                    e.toString());
        }
    }

    private static boolean ownerAlive(long pid, Path folder) throws IOException {
        Optional<ProcessHandle> process = ProcessHandle.of(pid);
        if (process.isEmpty()) {
            return false;
        }
        FileTime changed = Files.getLastModifiedTime(folder, LinkOption.NOFOLLOW_LINKS);
        // Unknown start time: assume alive, the folder is then left (harmless) rather than taken.
        return process.get().info().startInstant().map(started -> !started.isAfter(changed.toInstant()))
                .orElse(true);
    }

    /** Deletes {@code folder} and its files; a folder with a subfolder is not one of ours and is left. */
    private static void deleteFolder(Path folder) throws IOException {
        if (!Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
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

    private static void deleteOpenFolders() {
        for (Path folder : OPEN) {
            try {
                deleteFolder(folder);
            } catch (IOException | RuntimeException e) {
                // The JVM is exiting; a folder left here is removed by the next process's sweep.
            }
        }
    }
}

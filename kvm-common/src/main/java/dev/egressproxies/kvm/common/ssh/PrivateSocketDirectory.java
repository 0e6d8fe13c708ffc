package dev.egressproxies.kvm.common.ssh;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * A fresh folder, readable and writable by this user only (mode 0700), that holds a tunnel's
 * local unix socket.
 *
 * <p>The forwarded socket gives full control of the hypervisor, and a socket file's own mode is
 * not honoured everywhere, so access is limited by the folder it lives in. The folder is created
 * with its mode in one step, so there is no moment in which others could open it.
 */
final class PrivateSocketDirectory implements AutoCloseable {
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");

    private final Path directory;

    private PrivateSocketDirectory(Path directory) {
        this.directory = directory;
    }

    /** Creates a new private folder in the system's temporary folder. */
    static PrivateSocketDirectory create(String prefix) throws IOException {
        Path directory = Files.createTempDirectory(prefix, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        // createTempDirectory applies the mode through the umask; make sure it is exactly 0700.
        Files.setPosixFilePermissions(directory, OWNER_ONLY);
        return new PrivateSocketDirectory(directory);
    }

    /** Returns the folder. */
    Path path() {
        return directory;
    }

    /** Returns the path of {@code name} in the folder. */
    Path resolve(String name) {
        return directory.resolve(name);
    }

    /** Deletes the folder and everything in it (just the socket); safe to call more than once. */
    @Override
    public void close() throws IOException {
        if (!Files.isDirectory(directory)) {
            return;
        }
        try (DirectoryStream<Path> children = Files.newDirectoryStream(directory)) {
            for (Path child : children) {
                Files.deleteIfExists(child);
            }
        }
        Files.deleteIfExists(directory);
    }
}

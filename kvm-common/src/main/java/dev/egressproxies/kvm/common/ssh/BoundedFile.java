package dev.egressproxies.kvm.common.ssh;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A small configuration file read whole into memory, at most a fixed number of bytes, so that a
 * path pointing at something huge (a disk image, {@code /dev/zero}) cannot exhaust the heap.
 */
final class BoundedFile {
    private BoundedFile() {
    }

    /**
     * Returns the file's content, or empty when it is longer than {@code maximumBytes}.
     *
     * @throws java.nio.file.NoSuchFileException when the file does not exist
     * @throws IOException when it cannot be read
     */
    static Optional<byte[]> read(Path file, int maximumBytes) throws IOException {
        try (InputStream input = Files.newInputStream(file)) {
            byte[] content = input.readNBytes(maximumBytes + 1);
            return content.length > maximumBytes ? Optional.empty() : Optional.of(content);
        }
    }
}

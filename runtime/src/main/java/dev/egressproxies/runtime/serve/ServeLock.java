package dev.egressproxies.runtime.serve;

import dev.egressproxies.runtime.config.ConfigException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;

/**
 * The lock that keeps a second {@code serve} of the same desired file and state directory from
 * starting: an OS file lock, which the kernel releases when the process dies however it dies, on
 * a file that names its holder for the refusal message.
 */
final class ServeLock implements AutoCloseable {
    private final FileChannel channel;
    private final FileLock lock;

    private ServeLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes the lock of {@code desiredFile} in {@code stateDirectory}.
     *
     * @param holder what to record about this process (pid, address) for a refused second one
     * @throws ConfigException naming the holder, when another process holds it
     */
    static ServeLock take(Path stateDirectory, Path desiredFile, String holder) {
        Path file = stateDirectory.resolve("serve").resolve(lockName(desiredFile));
        try {
            Files.createDirectories(file.getParent());
            FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException sameProcess) {
                lock = null;
            }
            if (lock == null) {
                String other = Files.readString(file, StandardCharsets.UTF_8).strip();
                channel.close();
                throw new ConfigException("another egressctl serve already serves " + desiredFile + " with this state"
                        + " directory (" + (other.isEmpty() ? "holder unknown" : other) + "; lock " + file
                        + "): stop it first, or serve another desired set");
            }
            channel.truncate(0);
            channel.write(ByteBuffer.wrap((holder + ", since " + Instant.now() + "\n").getBytes(StandardCharsets.UTF_8)),
                    0);
            channel.force(false);
            return new ServeLock(channel, lock);
        } catch (IOException e) {
            throw new ConfigException("cannot take the serve lock " + file + ": " + e.getMessage()
                    + "; check that the state directory is writable");
        }
    }

    private static String lockName(Path desiredFile) {
        try {
            Path real = desiredFile.toRealPath();
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(real.toString().getBytes(StandardCharsets.UTF_8));
            return real.getFileName() + "-" + HexFormat.of().formatHex(digest, 0, 8) + ".lock";
        } catch (IOException e) {
            throw new ConfigException("no such file: " + desiredFile);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    @Override
    public void close() throws IOException {
        lock.release();
        channel.close();
    }
}

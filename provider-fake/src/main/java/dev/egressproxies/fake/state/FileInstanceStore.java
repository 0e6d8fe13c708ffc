package dev.egressproxies.fake.state;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Instances kept in a JSON file that every process configured with it shares, so separate
 * command-line runs see the same instances.
 *
 * <p>Every read goes to the file, since other processes change it. An update holds an exclusive
 * OS lock on a sibling {@code .lock} file for its whole read-modify-write, writes the new state to
 * a temporary file in the same directory, forces it to disk and renames it over the state file
 * atomically: a reader sees the old state or the new one, never a part, and a process killed
 * midway leaves the old state intact. A state file that cannot be read is an error naming the
 * file; it is never silently replaced, which would forget every instance in it.
 */
public final class FileInstanceStore implements InstanceStore {
    /** How long building the provider may wait to read the file. */
    private static final Duration OPEN_TIMEOUT = Duration.ofSeconds(30);
    /**
     * The largest state file read. The 254 addresses bound the instances, and so the state, to
     * well under a megabyte; a larger file is not one this provider wrote.
     */
    private static final int MAX_STATE_BYTES = 4 * 1024 * 1024;

    private final String entry;
    private final Path stateFile;
    private final Path lockFile;
    private final ReentrantLock processLock;
    private final StateFileCodec codec = new StateFileCodec();

    private FileInstanceStore(String entry, Path stateFile) {
        this.entry = entry;
        this.stateFile = stateFile;
        this.lockFile = stateFile.resolveSibling(stateFile.getFileName() + ".lock");
        this.processLock = ProcessWideLocks.forFile(lockFile);
    }

    /**
     * Opens the store kept in {@code stateFile}: creates its directory and checks that the file,
     * if it exists, can be read.
     *
     * @throws ProviderException PERMANENT, operation CONFIGURE, saying what to fix
     */
    public static FileInstanceStore open(String entry, Path stateFile) {
        Path absolute = stateFile.toAbsolutePath().normalize();
        if (absolute.getFileName() == null) {
            throw new ProviderException(ErrorKind.PERMANENT, Operation.CONFIGURE, entry, "",
                    "stateFile '" + stateFile + "' names no file: give a path such as /var/lib/egress/fake.json");
        }
        Path directory = absolute.getParent();
        Path resolved;
        try {
            Files.createDirectories(directory);
            // Resolved so every alias of one file shares one process-wide lock.
            resolved = directory.toRealPath().resolve(absolute.getFileName());
        } catch (IOException failure) {
            throw new ProviderException(ErrorKind.PERMANENT, Operation.CONFIGURE, entry, "",
                    "cannot create directory " + directory + " for stateFile (" + reason(failure)
                            + "): create it with write access for this user, or point stateFile elsewhere", failure);
        }
        FileInstanceStore store = new FileInstanceStore(entry, resolved);
        store.read(new StoreCall(Operation.CONFIGURE, "", Deadline.after(OPEN_TIMEOUT)));
        return store;
    }

    @Override
    public Map<String, StoredInstance> read(StoreCall call) {
        call.deadline().check(call.operation(), entry, call.instanceId());
        byte[] json;
        try (InputStream input = Files.newInputStream(stateFile)) {
            json = input.readNBytes(MAX_STATE_BYTES + 1);
        } catch (NoSuchFileException absent) {
            return Map.of();
        } catch (ClosedByInterruptException interrupted) {
            throw interrupted(call, interrupted);
        } catch (IOException failure) {
            throw new ProviderException(ErrorKind.PERMANENT, call.operation(), entry, call.instanceId(),
                    "cannot read state file " + stateFile + " (" + reason(failure) + "): make it a file this user"
                            + " can read and write, or point stateFile elsewhere", failure);
        }
        try {
            if (json.length > MAX_STATE_BYTES) {
                throw new StateFormatException("it is larger than " + MAX_STATE_BYTES + " bytes, far more than the"
                        + " fake provider ever writes");
            }
            return codec.decode(json);
        } catch (StateFormatException corrupt) {
            throw new ProviderException(ErrorKind.PERMANENT, call.operation(), entry, call.instanceId(),
                    "state file " + stateFile + " is corrupt: " + corrupt.getMessage() + ". Move it aside to keep it"
                            + " for inspection, or delete it to start with no instances (the instances it recorded"
                            + " are then forgotten)", corrupt);
        }
    }

    @Override
    public <T> T update(StoreCall call, Change<T> change) {
        DeadlineLocks.lock(processLock, entry, call);
        try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            // Released by closing the channel, which also happens when an interrupt closes it.
            DeadlineLocks.lock(channel, entry, call);
            Map<String, StoredInstance> current = read(call);
            Map<String, StoredInstance> changed = new TreeMap<>(current);
            T result = change.apply(changed);
            if (!changed.equals(current)) {
                write(changed, call);
            }
            return result;
        } catch (ClosedByInterruptException interrupted) {
            throw interrupted(call, interrupted);
        } catch (AccessDeniedException denied) {
            throw new ProviderException(ErrorKind.PERMANENT, call.operation(), entry, call.instanceId(),
                    "cannot open lock file " + lockFile + " (permission denied): give this user write access to "
                            + lockFile.getParent() + ", or point stateFile elsewhere", denied);
        } catch (IOException failure) {
            throw new ProviderException(ErrorKind.TRANSIENT, call.operation(), entry, call.instanceId(),
                    "cannot lock state file " + stateFile + " through " + lockFile + " (" + reason(failure)
                            + "); retry", failure);
        } finally {
            processLock.unlock();
        }
    }

    @Override
    public String location() {
        return stateFile.toString();
    }

    private void write(Map<String, StoredInstance> instances, StoreCall call) {
        byte[] json = codec.encode(instances);
        Path directory = stateFile.getParent();
        Path temporary = null;
        try {
            temporary = Files.createTempFile(directory, stateFile.getFileName() + ".", ".tmp");
            try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE)) {
                ByteBuffer buffer = ByteBuffer.wrap(json);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                // On disk before the rename publishes it, so a crash cannot leave an empty state file.
                channel.force(true);
            }
            Files.move(temporary, stateFile, StandardCopyOption.ATOMIC_MOVE);
            temporary = null;
        } catch (ClosedByInterruptException interrupted) {
            throw interrupted(call, interrupted);
        } catch (AccessDeniedException denied) {
            throw new ProviderException(ErrorKind.PERMANENT, call.operation(), entry, call.instanceId(),
                    "cannot write state file " + stateFile + " (permission denied): give this user write access to "
                            + directory + ", or point stateFile elsewhere", denied);
        } catch (IOException failure) {
            throw new ProviderException(ErrorKind.TRANSIENT, call.operation(), entry, call.instanceId(),
                    "cannot write state file " + stateFile + " (" + reason(failure) + "); nothing was changed,"
                            + " retry once the problem (a full disk?) is fixed", failure);
        } finally {
            deleteQuietly(temporary);
        }
        syncDirectory(directory);
    }

    /** Makes the rename itself durable; best effort, as some file systems cannot sync a directory. */
    private static void syncDirectory(Path directory) {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException unsupported) {
            // The new state is in place for every reader; only durability across a power loss is weaker.
        }
    }

    private static void deleteQuietly(Path temporary) {
        if (temporary == null) {
            return;
        }
        try {
            Files.deleteIfExists(temporary);
        } catch (IOException ignored) {
            // A stray temporary file is harmless: it is never read.
        }
    }

    private ProviderException interrupted(StoreCall call, ClosedByInterruptException closed) {
        InterruptedException interrupted = new InterruptedException("interrupted during state file I/O");
        interrupted.initCause(closed);
        return ProviderException.interrupted(call.operation(), entry, call.instanceId(), interrupted);
    }

    private static String reason(IOException failure) {
        String message = failure.getMessage();
        String type = failure.getClass().getSimpleName();
        return message == null ? type : type + ": " + message;
    }
}

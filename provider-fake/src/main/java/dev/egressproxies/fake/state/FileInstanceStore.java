package dev.egressproxies.fake.state;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Instances kept in a JSON file that every process configured with it shares, so separate
 * command-line runs see the same instances.
 *
 * <p>Every read goes to the file, since other processes change it. An update holds an exclusive
 * OS lock on a sibling {@code .lock} file for its whole read-modify-write, writes the new state to
 * a temporary file in the same directory, forces it to disk and renames it over the state file
 * atomically: a reader sees the old state or the new one, never a part, and a process killed
 * midway leaves the old state intact; the next write removes the temporary file it left. A state
 * file that cannot be read is an error of the call naming the file; it is never silently replaced,
 * which would forget every instance in it. The file also holds the operation log of the entries
 * that keep one ({@link #operationLog}): a change of the instances leaves the log as it was, and a
 * change of the log the instances.
 *
 * <p>Nothing is touched before it is needed: building the store does no I/O, reads create nothing
 * (a missing file or directory holds no instances), and the first write creates the directory.
 * Whoever holds the lock records itself in the lock file ({@link LockHolder}), so a call that waits
 * for another process says which one: in a warning after {@link DeadlineLocks#NOTICE_AFTER}, and in
 * its error when its deadline passes.
 */
public final class FileInstanceStore implements InstanceStore {
    private static final Logger LOG = LoggerFactory.getLogger(FileInstanceStore.class);
    /**
     * The largest state file read: room for every address of the {@code AddressPool} at a few
     * hundred bytes per instance, and for a full operation log; a larger file is not one this
     * provider wrote.
     */
    private static final int MAX_STATE_BYTES = 64 * 1024 * 1024;
    /** The most of a lock file read for its holder; a holder line is far shorter. */
    private static final int MAX_HOLDER_BYTES = 512;

    private final String entry;
    private final Path stateFile;
    private final Pattern temporaryFileName;
    private final StateFileCodec codec = new StateFileCodec();

    private FileInstanceStore(String entry, Path stateFile) {
        this.entry = entry;
        this.stateFile = stateFile;
        // Files.createTempFile puts digits between prefix and suffix; nothing else may match.
        this.temporaryFileName = Pattern.compile(Pattern.quote(stateFile.getFileName() + ".") + "\\d+\\.tmp");
    }

    /**
     * Opens the store kept in {@code stateFile}, without touching it: whether the file can be read
     * is found out, and reported, by the calls that read it.
     *
     * @throws ProviderException PERMANENT, operation CONFIGURE, when the path names no file
     */
    public static FileInstanceStore open(String entry, Path stateFile) {
        Path absolute = stateFile.toAbsolutePath().normalize();
        if (absolute.getFileName() == null) {
            throw new ProviderException(ErrorKind.PERMANENT, Operation.CONFIGURE, entry, "",
                    "stateFile '" + stateFile + "' names no file: give a path such as /var/lib/egress/fake.json");
        }
        return new FileInstanceStore(entry, absolute);
    }

    @Override
    public Map<String, StoredInstance> read(StoreCall call) {
        return readDocument(call).instances();
    }

    @Override
    public <T> T update(StoreCall call, Change<T> change) {
        return underLock(call, (current, save) -> {
            Map<String, StoredInstance> changed = new TreeMap<>(current.instances());
            T result = change.apply(changed);
            if (!changed.equals(current.instances())) {
                save.accept(new StateDocument(changed, current.operations()));
            }
            return result;
        });
    }

    /**
     * Applies {@code change} to the operation log, oldest record first, as one atomic step under
     * the same lock as {@link #update}; the instances stay as they are.
     *
     * @return what {@code change} returned
     */
    <T> T updateOperations(StoreCall call, Function<List<OperationRecord>, T> change) {
        return underLock(call, (current, save) -> {
            List<OperationRecord> changed = new ArrayList<>(current.operations());
            T result = change.apply(changed);
            if (!changed.equals(current.operations())) {
                save.accept(new StateDocument(current.instances(), changed));
            }
            return result;
        });
    }

    /**
     * A log of the operations of this store's entry, kept in this file next to the instances and
     * written under the same lock, its times read from {@code clock}. Building it does no I/O.
     */
    public OperationLog operationLog(Clock clock) {
        return new FileOperationLog(this, entry, clock);
    }

    /** The whole content of the file; empty when there is no file. */
    private StateDocument readDocument(StoreCall call) {
        call.deadline().check(call.operation(), entry, call.instanceId());
        byte[] json;
        try (InputStream input = Files.newInputStream(stateFile)) {
            json = input.readNBytes(MAX_STATE_BYTES + 1);
        } catch (NoSuchFileException absent) {
            return StateDocument.EMPTY;
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

    /**
     * Runs {@code change} on the current document while holding the lock for its whole
     * read-modify-write, so no other change, from this process or another, comes in between.
     */
    private <T> T underLock(StoreCall call, LockedChange<T> change) {
        call.deadline().check(call.operation(), entry, call.instanceId());
        Path directory = createDirectory(call);
        Path lockFile = directory.resolve(stateFile.getFileName() + ".lock");
        ReentrantLock processLock = ProcessWideLocks.forFile(lockFile);
        DeadlineLocks.lock(processLock, entry, call, stateFile.toString());
        try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            // Released by closing the channel, which also happens when an interrupt closes it.
            DeadlineLocks.lock(channel, entry, call, new BusyStateLock(call, lockFile, channel));
            recordHolder(channel);
            return change.apply(readDocument(call), changed -> write(changed, call, directory));
        } catch (ClosedByInterruptException interrupted) {
            throw interrupted(call, interrupted);
        } catch (AccessDeniedException denied) {
            throw new ProviderException(ErrorKind.PERMANENT, call.operation(), entry, call.instanceId(),
                    "cannot open lock file " + lockFile + " (permission denied): give this user write access to "
                            + directory + ", or point stateFile elsewhere", denied);
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

    /**
     * Creates the state file's directory, on the first write, and returns it with every link
     * resolved, so every alias of one file shares one process-wide lock.
     */
    private Path createDirectory(StoreCall call) {
        Path directory = stateFile.getParent();
        try {
            Files.createDirectories(directory);
            return directory.toRealPath();
        } catch (IOException failure) {
            throw new ProviderException(ErrorKind.PERMANENT, call.operation(), entry, call.instanceId(),
                    "cannot create directory " + directory + " for stateFile (" + reason(failure)
                            + "): create it with write access for this user, or point stateFile elsewhere", failure);
        }
    }

    /** Writes this process into the lock file it now holds; best effort, as it only serves messages. */
    private static void recordHolder(FileChannel channel) {
        try {
            channel.truncate(0);
            channel.write(ByteBuffer.wrap(LockHolder.thisProcess(Instant.now()).toLine()), 0);
        } catch (ClosedByInterruptException interrupted) {
            // The state access that follows reports the interrupt.
        } catch (IOException unwritable) {
            // A waiting process then says it does not know the holder; the state itself is unaffected.
        }
    }

    private void write(StateDocument document, StoreCall call, Path directory) {
        byte[] json = codec.encode(document);
        removeTemporaryFilesOfKilledWriters(directory);
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

    /**
     * Deletes the temporary files a writer killed midway left next to the state file. Safe while
     * the lock is held: every writer writes only under it, so none of them is being written.
     */
    private void removeTemporaryFilesOfKilledWriters(Path directory) {
        try (DirectoryStream<Path> leftovers = Files.newDirectoryStream(directory,
                file -> temporaryFileName.matcher(file.getFileName().toString()).matches())) {
            leftovers.forEach(FileInstanceStore::deleteQuietly);
        } catch (IOException | DirectoryIteratorException unlisted) {
            // Left for the next write: a stray temporary file is never read.
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

    /** A read-modify-write of the whole document, made while the lock is held. */
    @FunctionalInterface
    private interface LockedChange<T> {
        /**
         * Reads {@code current}, hands {@code save} the document to write when it changed, and
         * returns the caller's result.
         */
        T apply(StateDocument current, Consumer<StateDocument> save);
    }

    /** What a call says while it waits for another process's lock on the state file, and when it gives up. */
    private final class BusyStateLock implements DeadlineLocks.BusyLock {
        private final StoreCall call;
        private final Path lockFile;
        private final FileChannel channel;
        private final long startedAt = System.nanoTime();

        BusyStateLock(StoreCall call, Path lockFile, FileChannel channel) {
            this.call = call;
            this.lockFile = lockFile;
            this.channel = channel;
        }

        @Override
        public void stillWaiting() {
            String until = call.deadline().isBounded()
                    ? "until its deadline, " + seconds(call.deadline().remaining()) + " from now"
                    : "until it is free";
            LOG.warn("{} on provider entry '{}' is waiting for the lock on state file {}: {} holds it (see {});"
                    + " waiting {}", call.operation(), entry, stateFile, holder(), lockFile, until);
        }

        @Override
        public ProviderException deadlinePassed() {
            return new ProviderException(ErrorKind.TRANSIENT, call.operation(), entry, call.instanceId(),
                    "gave up after " + seconds(Duration.ofNanos(System.nanoTime() - startedAt)) + " waiting for the"
                            + " lock on state file " + stateFile + ": " + holder() + " holds it (see " + lockFile
                            + "); retry once it is done, with a longer deadline if it is busy, or stop that process"
                            + " if it hangs (the lock is freed when it exits)");
        }

        /** The holder the lock file records, for messages. */
        private String holder() {
            ByteBuffer content = ByteBuffer.allocate(MAX_HOLDER_BYTES);
            try {
                channel.read(content, 0);
            } catch (IOException unreadable) {
                return "another process (which one is unknown: " + reason(unreadable) + ")";
            }
            byte[] bytes = Arrays.copyOf(content.array(), content.position());
            return LockHolder.parse(bytes).map(LockHolder::describe)
                    .orElse("another process (which one is unknown: it did not record itself)");
        }
    }

    private static String seconds(Duration duration) {
        return String.format(Locale.ROOT, "%.1f s", Math.max(0, duration.toMillis()) / 1000.0);
    }

    private static String reason(IOException failure) {
        String message = failure.getMessage();
        String type = failure.getClass().getSimpleName();
        return message == null ? type : type + ": " + message;
    }
}

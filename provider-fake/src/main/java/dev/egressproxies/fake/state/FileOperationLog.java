package dev.egressproxies.fake.state;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ProviderException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.ListIterator;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An operation log kept in a state file, in the {@code operations} list of its document
 * ({@link StateFileCodec}), shared by every process and entry that keeps one in that file.
 *
 * <p>Each operation appends its record as it begins, before it waits or does anything, and fills
 * in its end and outcome as it ends; both are written under the state file's lock, with the time
 * read under the lock, so the records order the operations as the lock did: an operation whose end
 * was written before another's beginning has an {@code ended} no later than that one's
 * {@code started}. An operation killed in its course leaves its record open.
 *
 * <p>The log keeps the last {@value #CAPACITY} records; appending one more drops the oldest, so a
 * long soak cannot grow the file without limit. An operation whose record was dropped while it ran
 * ends unrecorded.
 */
final class FileOperationLog implements OperationLog {
    /** The most records the log keeps. */
    static final int CAPACITY = 10_000;
    /**
     * How long writing an end waits for the lock, whatever the caller's deadline: that one has often
     * passed, which is why the operation ended. A live holder keeps the lock for milliseconds.
     */
    private static final Duration END_WAIT = Duration.ofSeconds(5);
    private static final Logger LOG = LoggerFactory.getLogger(FileOperationLog.class);

    private final FileInstanceStore store;
    private final String entry;
    private final Clock clock;

    FileOperationLog(FileInstanceStore store, String entry, Clock clock) {
        this.store = store;
        this.entry = entry;
        this.clock = clock;
    }

    @Override
    public <T> T record(StoreCall call, Supplier<T> operation) {
        long seq = begin(call);
        T result;
        try {
            result = operation.get();
        } catch (ProviderException failure) {
            end(call, seq, failure.kind().name());
            throw failure;
        } catch (RuntimeException | Error failure) {
            end(call, seq, failure.getClass().getSimpleName());
            throw failure;
        }
        end(call, seq, OperationRecord.OK);
        return result;
    }

    /** Appends the record of the operation {@code call} begins, and returns its number. */
    private long begin(StoreCall call) {
        return store.updateOperations(call, operations -> {
            long seq = operations.isEmpty() ? 1 : operations.get(operations.size() - 1).seq() + 1;
            operations.add(new OperationRecord(seq, entry, call.operation().displayName(), call.instanceId(),
                    ProcessIdentity.CURRENT, clock.instant(), null, null));
            if (operations.size() > CAPACITY) {
                operations.subList(0, operations.size() - CAPACITY).clear();
            }
            return seq;
        });
    }

    /**
     * Fills in the end of record {@code seq}. Never throws: the operation's own result or error is
     * what the caller must see; a record left open only makes the log more cautious.
     */
    private void end(StoreCall call, long seq, String outcome) {
        // Cleared while the end is written, so an interrupted operation still records that it
        // ended; set again afterwards, as the caller must find it.
        boolean interrupted = Thread.interrupted();
        try {
            store.updateOperations(new StoreCall(call.operation(), call.instanceId(), Deadline.after(END_WAIT)),
                    operations -> complete(operations, seq, outcome));
        } catch (ProviderException unwritten) {
            LOG.warn("{} of '{}' on provider entry '{}' ended ({}), but its record {} in the operation log of {}"
                    + " could not be completed, so it stays open: {}", call.operation(), call.instanceId(), entry,
                    outcome, seq, store.location(), unwritten.getMessage());
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Ends this process's record {@code seq}, unless it was dropped meanwhile. */
    private Void complete(List<OperationRecord> operations, long seq, String outcome) {
        // From the newest: the record is usually among the last few.
        ListIterator<OperationRecord> records = operations.listIterator(operations.size());
        while (records.hasPrevious()) {
            OperationRecord record = records.previous();
            if (record.seq() == seq && record.process().equals(ProcessIdentity.CURRENT)) {
                records.set(record.end(clock.instant(), outcome));
                break;
            }
        }
        return null;
    }
}

package dev.egressproxies.fake.state;

import java.time.Instant;
import java.util.Objects;

/**
 * One mutating operation of a provider entry as the state file's operation log keeps it: begun
 * when its record is appended, ended when its end and outcome are filled in.
 *
 * <p>A record that never ends belongs to an operation still in flight, or to a process that died
 * (or could not write the end, which it then logs as a warning) during it.
 *
 * @param seq       the record's number: one more than the record before it, so the numbers order
 *                  the operations' beginnings as the state file's lock did
 * @param entry     the provider entry the operation was called on
 * @param operation the operation's name, as {@link dev.egressproxies.api.Operation#displayName()}
 *                  gives it: {@code create} or {@code delete}
 * @param instance  the instance it is about as the call knew it when it began: its provider ID,
 *                  or its name for a create that named no zone
 * @param process   the process that made it
 * @param started   when it began, by the provider's clock, taken under the lock
 * @param ended     when it ended, by the provider's clock, taken under the lock; {@code null}
 *                  while it has not
 * @param outcome   {@link #OK}, the {@link dev.egressproxies.api.ErrorKind} name of the provider
 *                  error it ended with, or the simple class name of any other exception;
 *                  {@code null} while it has not ended
 */
record OperationRecord(long seq, String entry, String operation, String instance, ProcessIdentity process,
                       Instant started, Instant ended, String outcome) {
    /** The outcome of an operation that succeeded. */
    static final String OK = "ok";

    /** Rejects missing values, so a damaged state file is reported as corrupt rather than misread. */
    OperationRecord {
        Objects.requireNonNull(entry, "entry");
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(instance, "instance");
        Objects.requireNonNull(process, "process");
        Objects.requireNonNull(process.host(), "host");
        Objects.requireNonNull(started, "started");
        if ((ended == null) != (outcome == null)) {
            throw new IllegalArgumentException("ended and outcome are set together, when the operation ends");
        }
    }

    /** This record, of an operation that ended at {@code now} with {@code endedWith}. */
    OperationRecord end(Instant now, String endedWith) {
        return new OperationRecord(seq, entry, operation, instance, process, started,
                Objects.requireNonNull(now, "now"), Objects.requireNonNull(endedWith, "endedWith"));
    }
}

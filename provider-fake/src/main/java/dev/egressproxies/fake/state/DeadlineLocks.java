package dev.egressproxies.fake.state;

import dev.egressproxies.api.ProviderException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Lock acquisition that gives up when the caller's deadline passes or its thread is interrupted,
 * as the contract demands of every wait.
 */
final class DeadlineLocks {
    /** How long to wait between attempts at the file lock at first; doubled up to the maximum. */
    private static final long FIRST_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    private static final long MAX_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private DeadlineLocks() {
    }

    /**
     * Locks {@code lock}.
     *
     * @throws ProviderException TRANSIENT when the deadline passes or the thread is interrupted first
     */
    static void lock(ReentrantLock lock, String entry, StoreCall call) {
        call.deadline().check(call.operation(), entry, call.instanceId());
        try {
            if (!lock.tryLock(call.deadline().remaining().toNanos(), TimeUnit.NANOSECONDS)) {
                throw ProviderException.deadlineExceeded(call.operation(), entry, call.instanceId());
            }
        } catch (InterruptedException interrupted) {
            throw ProviderException.interrupted(call.operation(), entry, call.instanceId(), interrupted);
        }
    }

    /**
     * Takes the exclusive OS lock on {@code channel}'s file, polling, because the blocking
     * {@link FileChannel#lock()} can be neither timed nor interrupted without closing the channel.
     *
     * @throws ProviderException TRANSIENT when the deadline passes or the thread is interrupted first
     * @throws IOException       when the lock cannot be attempted at all
     */
    static FileLock lock(FileChannel channel, String entry, StoreCall call) throws IOException {
        long pause = FIRST_POLL_NANOS;
        while (true) {
            call.deadline().check(call.operation(), entry, call.instanceId());
            FileLock lock = tryLock(channel);
            if (lock != null) {
                return lock;
            }
            try {
                TimeUnit.NANOSECONDS.sleep(Math.min(pause, call.deadline().remaining().toNanos()));
            } catch (InterruptedException interrupted) {
                throw ProviderException.interrupted(call.operation(), entry, call.instanceId(), interrupted);
            }
            pause = Math.min(pause * 2, MAX_POLL_NANOS);
        }
    }

    private static FileLock tryLock(FileChannel channel) throws IOException {
        try {
            return channel.tryLock();
        } catch (OverlappingFileLockException heldInThisProcess) {
            // Another part of this JVM, outside this module's process-wide lock, holds it: wait as
            // for another process.
            return null;
        }
    }
}

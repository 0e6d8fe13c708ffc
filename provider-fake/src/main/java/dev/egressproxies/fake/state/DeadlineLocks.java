package dev.egressproxies.fake.state;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.ProviderException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.time.Duration;
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
    /** How long a wait for a file lock goes unmentioned: longer than any healthy holder takes. */
    static final Duration NOTICE_AFTER = Duration.ofSeconds(2);

    private DeadlineLocks() {
    }

    /**
     * Locks {@code lock}, which other calls of this process take for the instances kept in {@code location}.
     *
     * @throws ProviderException TRANSIENT when the deadline passes or the thread is interrupted first
     */
    static void lock(ReentrantLock lock, String entry, StoreCall call, String location) {
        call.deadline().check(call.operation(), entry, call.instanceId());
        try {
            if (!lock.tryLock(call.deadline().remaining().toNanos(), TimeUnit.NANOSECONDS)) {
                throw new ProviderException(ErrorKind.TRANSIENT, call.operation(), entry, call.instanceId(),
                        "the deadline passed while other calls of this process changed the instances in " + location
                                + " (or waited for another process's lock on it); retry with a longer deadline");
            }
        } catch (InterruptedException interrupted) {
            throw ProviderException.interrupted(call.operation(), entry, call.instanceId(), interrupted);
        }
    }

    /**
     * Takes the exclusive OS lock on {@code channel}'s file, polling, because the blocking
     * {@link FileChannel#lock()} can be neither timed nor interrupted without closing the channel.
     * A wait that lasts {@link #NOTICE_AFTER} is told to {@code busy} once, so a person watching
     * learns what the call waits for.
     *
     * @throws ProviderException TRANSIENT when the thread is interrupted first, or
     *                           {@link BusyLock#deadlinePassed()} when the deadline passes first
     * @throws IOException       when the lock cannot be attempted at all
     */
    static FileLock lock(FileChannel channel, String entry, StoreCall call, BusyLock busy) throws IOException {
        long pause = FIRST_POLL_NANOS;
        long noticeAt = System.nanoTime() + NOTICE_AFTER.toNanos();
        boolean noticed = false;
        while (true) {
            if (Thread.currentThread().isInterrupted()) {
                throw ProviderException.interrupted(call.operation(), entry, call.instanceId(),
                        new InterruptedException());
            }
            FileLock lock = tryLock(channel);
            if (lock != null) {
                return lock;
            }
            if (call.deadline().isExpired()) {
                throw busy.deadlinePassed();
            }
            if (!noticed && System.nanoTime() - noticeAt >= 0) {
                noticed = true;
                busy.stillWaiting();
            }
            try {
                TimeUnit.NANOSECONDS.sleep(Math.min(pause, call.deadline().remaining().toNanos()));
            } catch (InterruptedException interrupted) {
                throw ProviderException.interrupted(call.operation(), entry, call.instanceId(), interrupted);
            }
            pause = Math.min(pause * 2, MAX_POLL_NANOS);
        }
    }

    /** What a wait for a file lock that someone else holds tells people. */
    interface BusyLock {
        /** Says, once, that the call is still waiting. */
        void stillWaiting();

        /** The TRANSIENT error of a call whose deadline passed while it waited. */
        ProviderException deadlinePassed();
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

package dev.egressproxies.kvm.common.instance;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Mutual exclusion per key within this process (per base image volume on a host, per instance),
 * where waiting gives up when the caller's deadline passes or its thread is interrupted.
 *
 * <p>A key's lock exists only while someone holds or waits for it, so the map does not grow with
 * every instance name ever used.
 */
public final class KeyedLocks {
    private final Map<String, Entry> entries = new HashMap<>();

    /**
     * Runs {@code work} holding the lock of {@code key}, waiting for it at most until the call's
     * deadline.
     *
     * @param what what a wait is for, for the deadline error ("another create downloading ...")
     * @throws dev.egressproxies.api.ProviderException TRANSIENT when the deadline passes or the
     *                                                 thread is interrupted before the lock is held
     */
    public <T> T withLock(String key, Call call, String what, Supplier<T> work) {
        call.checkDeadline();
        Entry entry = enter(key);
        try {
            lock(entry, call, what);
            try {
                return work.get();
            } finally {
                entry.lock.unlock();
            }
        } finally {
            leave(key, entry);
        }
    }

    /** How many keys have a lock right now; for tests. */
    public synchronized int size() {
        return entries.size();
    }

    private static void lock(Entry entry, Call call, String what) {
        try {
            if (!entry.lock.tryLock(call.deadline().remaining().toNanos(), TimeUnit.NANOSECONDS)) {
                throw call.deadlineExceeded("waiting for " + what, null);
            }
        } catch (InterruptedException interrupted) {
            throw call.interrupted(interrupted);
        }
    }

    private synchronized Entry enter(String key) {
        Entry entry = entries.computeIfAbsent(key, unused -> new Entry());
        entry.users++;
        return entry;
    }

    private synchronized void leave(String key, Entry entry) {
        if (--entry.users == 0) {
            entries.remove(key);
        }
    }

    /** One key's lock and how many callers hold or wait for it (guarded by the KeyedLocks). */
    private static final class Entry {
        final ReentrantLock lock = new ReentrantLock();
        int users;
    }
}

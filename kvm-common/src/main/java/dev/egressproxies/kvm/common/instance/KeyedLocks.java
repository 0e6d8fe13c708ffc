package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.kvm.common.Call;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/** Mutual exclusion per key (a base on a host, an instance name) in this process, waiting up to the deadline. */
final class KeyedLocks {
    private final Map<String, Entry> entries = new HashMap<>();

    /** Runs {@code work} holding {@code key}'s lock; TRANSIENT, naming {@code what}, on deadline or interrupt. */
    public <T> T withLock(String key, Call call, String what, Supplier<T> work) {
        call.checkDeadline();
        Entry entry = enter(key);
        try {
            if (!entry.lock.tryLock(call.deadline().remaining().toNanos(), TimeUnit.NANOSECONDS)) {
                throw call.deadlineExceeded("waiting for " + what, null);
            }
            try {
                return work.get();
            } finally {
                entry.lock.unlock();
            }
        } catch (InterruptedException interrupted) {
            throw call.interrupted(interrupted);
        } finally {
            leave(key, entry);
        }
    }

    /** How many keys have a lock right now; for tests. */
    public synchronized int size() {
        return entries.size();
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

    private static final class Entry {
        final ReentrantLock lock = new ReentrantLock();
        int users;
    }
}

package dev.egressproxies.fake.state;

import java.nio.file.Path;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One in-process lock per lock file, shared by every store of this JVM that uses the file.
 *
 * <p>Static on purpose: OS file locks belong to the whole process, and closing <em>any</em>
 * channel on a file may release every lock the process holds on it. So two stores on one file in
 * one JVM (two entries, or two providers in a test) must never hold channels on the lock file at
 * the same time; this lock keeps them apart. The map only grows by one entry per state file.
 */
final class ProcessWideLocks {
    private static final ConcurrentMap<Path, ReentrantLock> LOCKS = new ConcurrentHashMap<>();

    private ProcessWideLocks() {
    }

    /** The lock for {@code lockFile}, which must be an absolute path with its directories resolved. */
    static ReentrantLock forFile(Path lockFile) {
        return LOCKS.computeIfAbsent(lockFile, file -> new ReentrantLock());
    }
}

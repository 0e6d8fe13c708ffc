package dev.egressproxies.kvm.common.host;

import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads host calls and dials run on while their callers wait with a deadline.
 *
 * <p>A call cut off by its deadline keeps its thread until the aborted native call returns, so
 * the pool must never make new work queue behind such a thread: it starts a new thread whenever
 * none is idle (Java 17 has no virtual threads). Threads are daemons, so one stuck in a native call
 * never keeps the JVM from exiting, and idle ones end after a minute.
 */
final class WorkerThreads {
    private static final long IDLE_SECONDS = 60;

    private WorkerThreads() {
    }

    /** A new unbounded pool whose threads are named after {@code purpose}. */
    static ThreadPoolExecutor newPool(String purpose) {
        AtomicInteger count = new AtomicInteger();
        ThreadFactory factory = work -> {
            Thread thread = new Thread(work, purpose + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
        return new ThreadPoolExecutor(0, Integer.MAX_VALUE, IDLE_SECONDS, TimeUnit.SECONDS, new SynchronousQueue<>(),
                factory);
    }
}

package dev.egressproxies.runtime.serve;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs proxy operations: at most one at a time per proxy, at most {@code perHost} at a time per host
 * (the rest wait in that host's queue), and hosts never wait for each other. Closing it refuses new
 * operations; {@link #awaitIdle} lets those in flight finish and {@link #interrupt} cuts them short.
 */
final class OperationQueue {
    private final int perHost;
    private final ExecutorService workers;
    private final Map<String, Queue<Queued>> waiting = new HashMap<>();
    private final Map<String, Integer> running = new HashMap<>();
    private final Set<String> busyKeys = new HashSet<>();
    private final Map<String, Thread> runningThreads = new HashMap<>();
    private boolean closed;

    private record Queued(String key, String host, Runnable operation) {
    }

    OperationQueue(int perHost) {
        if (perHost < 1) {
            throw new IllegalArgumentException("per-host concurrency must be at least 1, got " + perHost);
        }
        this.perHost = perHost;
        AtomicInteger count = new AtomicInteger();
        this.workers = Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task, "serve-operation-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Queues an operation on a proxy.
     *
     * @param key       the proxy ({@code entry/name}): one operation per key at a time
     * @param host      the host it runs against ({@code entry/zone}): at most {@code perHost} at a time
     * @param operation what to do
     * @return false, queuing nothing, when the proxy already has an operation queued or running, or
     *         when the queue is closed
     */
    synchronized boolean submit(String key, String host, Runnable operation) {
        if (closed || !busyKeys.add(key)) {
            return false;
        }
        waiting.computeIfAbsent(host, any -> new ArrayDeque<>()).add(new Queued(key, host, operation));
        dispatch(host);
        return true;
    }

    /** Whether the proxy has an operation queued or running. */
    synchronized boolean busy(String key) {
        return busyKeys.contains(key);
    }

    /** How many operations are queued or running. */
    synchronized int size() {
        return busyKeys.size();
    }

    private void dispatch(String host) {
        Queue<Queued> queue = waiting.get(host);
        while (queue != null && !queue.isEmpty() && running.getOrDefault(host, 0) < perHost) {
            Queued next = queue.remove();
            running.merge(host, 1, Integer::sum);
            workers.execute(() -> {
                try {
                    if (started(next)) {
                        next.operation().run();
                    }
                } finally {
                    finished(next);
                }
            });
        }
    }

    /** Records the operation's thread, so that it can be interrupted alone; false when it was cancelled meanwhile. */
    private synchronized boolean started(Queued next) {
        if (!busyKeys.contains(next.key())) {
            return false;
        }
        runningThreads.put(next.key(), Thread.currentThread());
        return true;
    }

    private synchronized void finished(Queued done) {
        runningThreads.remove(done.key());
        Thread.interrupted();
        busyKeys.remove(done.key());
        running.merge(done.host(), -1, Integer::sum);
        if (!closed) {
            dispatch(done.host());
        }
        notifyAll();
    }

    /** Refuses new operations and drops the queued ones that have not started. */
    synchronized void close() {
        closed = true;
        for (Queue<Queued> queue : waiting.values()) {
            queue.forEach(dropped -> busyKeys.remove(dropped.key()));
            queue.clear();
        }
        notifyAll();
    }

    /** Waits up to {@code limit} for the running operations to finish; true when none is left. */
    synchronized boolean awaitIdle(Duration limit) throws InterruptedException {
        long end = System.nanoTime() + limit.toNanos();
        while (!busyKeys.isEmpty()) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return true;
    }

    /**
     * Stops the operations of one entry: drops its queued ones and interrupts its running ones,
     * which return within about a second and clean up; the others go on.
     *
     * @param entry the entry whose proxies' keys ({@code entry/name}) are stopped
     */
    synchronized void cancel(String entry) {
        String prefix = entry + "/";
        for (Queue<Queued> queue : waiting.values()) {
            queue.removeIf(dropped -> dropped.key().startsWith(prefix) && busyKeys.remove(dropped.key()));
        }
        runningThreads.forEach((key, thread) -> {
            if (key.startsWith(prefix)) {
                thread.interrupt();
            }
        });
        notifyAll();
    }

    /** Waits up to {@code limit} for one entry's operations to finish; true when none is left. */
    synchronized boolean awaitIdle(String entry, Duration limit) throws InterruptedException {
        String prefix = entry + "/";
        long end = System.nanoTime() + limit.toNanos();
        while (busyKeys.stream().anyMatch(key -> key.startsWith(prefix))) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return true;
    }

    /** Interrupts the running operations; the providers return within about a second and clean up. */
    void interrupt() {
        workers.shutdownNow();
    }
}

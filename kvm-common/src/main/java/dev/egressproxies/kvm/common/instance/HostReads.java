package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.config.HostSettings;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Reads of many things on one host's connection, {@link #READERS} at once (below libvirtd's
 * default of 5 requests per client): the first failure, a passed deadline or an
 * interrupt stops the other readers.
 */
final class HostReads {
    /** How many reads of one host run at once, below libvirtd's default of 5 requests per client. */
    static final int READERS = 4;
    static final String THREAD_PREFIX = "egress-proxies-read-";

    private HostReads() {
    }

    /** {@code read} of each item, in the items' order; within a host call. */
    static <T, R> List<R> each(HostSettings host, Call call, List<T> items, Function<T, R> read) {
        if (items.isEmpty()) {
            return List.of();
        }
        Object[] found = new Object[items.size()];
        AtomicInteger next = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        int readers = Math.min(READERS, items.size());
        ExecutorService threads = Executors.newFixedThreadPool(readers,
                HostPool.daemonThreads(THREAD_PREFIX + host.name() + "-"));
        try {
            CompletionService<Void> done = new ExecutorCompletionService<>(threads);
            for (int reader = 0; reader < readers; reader++) {
                done.submit(() -> {
                    for (int index = next.getAndIncrement(); index < found.length && !stop.get();
                            index = next.getAndIncrement()) {
                        if (Thread.currentThread().isInterrupted()) {
                            throw new CancellationException("reading on host " + host.name() + " was interrupted");
                        }
                        call.checkDeadline();
                        found[index] = read.apply(items.get(index));
                    }
                    return null;
                });
            }
            for (int finished = 0; finished < readers; ) {
                Future<Void> reader = done.poll(Math.max(0, call.deadline().remaining().toNanos()),
                        TimeUnit.NANOSECONDS);
                if (reader == null) {
                    call.checkDeadline();
                    continue;
                }
                finished++;
                try {
                    reader.get();
                } catch (ExecutionException failed) {
                    stop.set(true);
                    if (failed.getCause() instanceof Error error) {
                        throw error;
                    }
                    throw (RuntimeException) failed.getCause(); // the readers throw nothing checked
                }
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while reading on host " + host.name());
        } finally {
            stop.set(true);
            threads.shutdownNow();
        }
        @SuppressWarnings("unchecked")
        List<R> results = (List<R>) new ArrayList<>(Arrays.asList(found));
        return results;
    }
}

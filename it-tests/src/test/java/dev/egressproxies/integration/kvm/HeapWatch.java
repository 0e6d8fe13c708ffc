package dev.egressproxies.integration.kvm;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * What the JVM's heap did while a benchmark ran something: measured from a baseline taken after an
 * explicit {@code System.gc()}, so the figures are what the run added.
 *
 * <ul>
 *   <li>peak live: the most heap in use right after any garbage collection during the run (from
 *       the collectors' notifications), minus the baseline: what the run held on to at its worst;
 *   <li>peak used: the most heap in use at any moment, garbage not yet collected included (a
 *       sampler thread reads it every {@value #SAMPLE_MILLIS} ms), minus the baseline: mostly the
 *       size of the young generation, which the collector chooses;
 *   <li>allocated: every byte the collections freed plus what the run left in use; and the number
 *       of collections.
 * </ul>
 * The figures cover the whole JVM: the benchmark's own HTTP server counts too.
 */
final class HeapWatch implements AutoCloseable {
    private static final long SAMPLE_MILLIS = 20;

    private final Set<String> heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
            .filter(pool -> pool.getType() == MemoryType.HEAP).map(MemoryPoolMXBean::getName)
            .collect(Collectors.toSet());
    private final List<NotificationEmitter> collectors = new ArrayList<>();
    private final NotificationListener listener = this::collected;
    private final long baseline;
    private final AtomicLong peakLive = new AtomicLong();
    private final AtomicLong peakUsed = new AtomicLong();
    private final AtomicLong freed = new AtomicLong();
    private final AtomicLong collections = new AtomicLong();
    private final Thread sampler;
    private volatile boolean sampling = true;

    private HeapWatch() {
        System.gc();
        baseline = usedHeap();
        peakLive.set(baseline);
        peakUsed.set(baseline);
        for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (collector instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener(listener, null, null);
                collectors.add(emitter);
            }
        }
        sampler = new Thread(this::sample, "heap-watch");
        sampler.setDaemon(true);
        sampler.start();
    }

    /** Collects garbage, takes the baseline and starts watching. */
    static HeapWatch start() {
        return new HeapWatch();
    }

    /** Stops watching and returns the figures. */
    Figures stop() {
        close();
        long used = usedHeap();
        peakUsed.accumulateAndGet(used, Math::max);
        return new Figures(peakLive.get() - baseline, peakUsed.get() - baseline, freed.get() + used - baseline,
                collections.get());
    }

    @Override
    public void close() {
        sampling = false;
        for (NotificationEmitter emitter : collectors) {
            try {
                emitter.removeNotificationListener(listener);
            } catch (ListenerNotFoundException alreadyGone) {
                // Removed by an earlier close.
            }
        }
        collectors.clear();
        try {
            sampler.join(1000);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void sample() {
        while (sampling) {
            peakUsed.accumulateAndGet(usedHeap(), Math::max);
            try {
                Thread.sleep(SAMPLE_MILLIS);
            } catch (InterruptedException interrupted) {
                return;
            }
        }
    }

    private void collected(Notification notification, Object handback) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
            return;
        }
        var info = GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData()).getGcInfo();
        long before = heapSum(info.getMemoryUsageBeforeGc());
        long after = heapSum(info.getMemoryUsageAfterGc());
        peakLive.accumulateAndGet(after, Math::max);
        peakUsed.accumulateAndGet(before, Math::max);
        freed.addAndGet(Math.max(0, before - after));
        collections.incrementAndGet();
    }

    private long heapSum(Map<String, MemoryUsage> pools) {
        return pools.entrySet().stream().filter(pool -> heapPools.contains(pool.getKey()))
                .mapToLong(pool -> pool.getValue().getUsed()).sum();
    }

    private static long usedHeap() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /**
     * What one run did to the heap, in bytes above the baseline.
     *
     * @param peakLive    the most in use right after a collection
     * @param peakUsed    the most in use at any moment, garbage included
     * @param allocated   about how much the run allocated
     * @param collections how many collections ran
     */
    record Figures(long peakLive, long peakUsed, long allocated, long collections) {
        /** "live 3.1 MiB, used 150.0 MiB, allocated 2100 MiB in 12 GCs". */
        @Override
        public String toString() {
            return String.format("peak live +%.1f MiB, peak used +%.1f MiB, allocated %.0f MiB in %d GCs",
                    mebibytes(peakLive), mebibytes(peakUsed), mebibytes(allocated), collections);
        }

        private static double mebibytes(long bytes) {
            return bytes / 1048576.0;
        }
    }
}

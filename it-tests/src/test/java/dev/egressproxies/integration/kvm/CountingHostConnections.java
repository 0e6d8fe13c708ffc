package dev.egressproxies.integration.kvm;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.kvm.common.host.HostCall;
import dev.egressproxies.kvm.common.host.HostConnections;
import dev.egressproxies.kvm.common.host.HostEndpoint;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * {@link HostConnections} that count what the provider asks of libvirt: every call of the libvirt
 * adapter ({@link LibvirtHost}) made through them, by method, with the time spent in each method,
 * and every host call (one unit of work run on a host's link).
 */
final class CountingHostConnections implements HostConnections {
    private final HostConnections delegate;
    private final Map<String, LongAdder> calls = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> nanos = new ConcurrentHashMap<>();
    private final AtomicLong hostCalls = new AtomicLong();
    private final Counter counter = new Counter();

    CountingHostConnections(HostConnections delegate) {
        this.delegate = delegate;
    }

    @Override
    public <T> T call(HostEndpoint host, Deadline deadline, HostCall<T> work) {
        hostCalls.incrementAndGet();
        return delegate.call(host, deadline, libvirt -> work.apply(new InterceptedLibvirtHost(libvirt, counter)));
    }

    @Override
    public void close() {
        delegate.close();
    }

    /** Forgets the counts so far. */
    void reset() {
        calls.clear();
        nanos.clear();
        hostCalls.set(0);
    }

    /** The libvirt adapter calls since the last reset, by method, sorted by name. */
    Map<String, Long> calls() {
        Map<String, Long> sorted = new TreeMap<>();
        calls.forEach((method, count) -> sorted.put(method, count.sum()));
        return sorted;
    }

    /** The libvirt adapter calls since the last reset, in all. */
    long totalCalls() {
        return calls.values().stream().mapToLong(LongAdder::sum).sum();
    }

    /** The time spent inside each adapter method since the last reset, in nanoseconds. */
    Map<String, Long> nanos() {
        Map<String, Long> sorted = new TreeMap<>();
        nanos.forEach((method, total) -> sorted.put(method, total.sum()));
        return sorted;
    }

    /** The host calls (units of work on a link) since the last reset. */
    long hostCalls() {
        return hostCalls.get();
    }

    /** Counts and times one adapter call under its method's name. */
    private final class Counter implements InterceptedLibvirtHost.Interceptor {
        @Override
        public <T> T around(String method, String subject, Supplier<T> call) {
            calls.computeIfAbsent(method, key -> new LongAdder()).increment();
            long started = System.nanoTime();
            try {
                return call.get();
            } finally {
                nanos.computeIfAbsent(method, key -> new LongAdder()).add(System.nanoTime() - started);
            }
        }
    }
}

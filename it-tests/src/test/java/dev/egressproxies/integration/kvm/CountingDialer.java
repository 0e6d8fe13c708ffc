package dev.egressproxies.integration.kvm;

import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.host.HostDialer;
import dev.egressproxies.kvm.common.host.HostEndpoint;
import dev.egressproxies.kvm.common.host.HostLink;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * A {@link HostDialer} whose links count what the provider asks of libvirt: every call of the
 * libvirt adapter ({@link LibvirtHost}) made through them, by method, with the time spent in each
 * method, and every host call (the pool asks a link for its adapter once per unit of work).
 */
final class CountingDialer implements HostDialer {
    private final HostDialer links;
    private final Map<String, LongAdder> calls = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> nanos = new ConcurrentHashMap<>();
    private final AtomicLong hostCalls = new AtomicLong();
    private final Counter counter = new Counter();

    CountingDialer(HostDialer delegate) {
        this.links = new InterceptingDialer(delegate, counter, hostCalls::incrementAndGet);
    }

    @Override
    public HostLink dial(HostEndpoint host, Call dial) {
        return links.dial(host, dial);
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

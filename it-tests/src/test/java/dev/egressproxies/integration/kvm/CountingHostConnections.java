package dev.egressproxies.integration.kvm;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.kvm.common.host.HostCall;
import dev.egressproxies.kvm.common.host.HostConnections;
import dev.egressproxies.kvm.common.host.HostEndpoint;
import dev.egressproxies.kvm.common.libvirt.AddressSource;
import dev.egressproxies.kvm.common.libvirt.Domain;
import dev.egressproxies.kvm.common.libvirt.DomainState;
import dev.egressproxies.kvm.common.libvirt.HostInfo;
import dev.egressproxies.kvm.common.libvirt.InterfaceAddress;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import dev.egressproxies.kvm.common.libvirt.PoolInfo;
import dev.egressproxies.kvm.common.libvirt.StoragePool;
import dev.egressproxies.kvm.common.libvirt.StorageVolume;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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

    CountingHostConnections(HostConnections delegate) {
        this.delegate = delegate;
    }

    @Override
    public <T> T call(HostEndpoint host, Deadline deadline, HostCall<T> work) {
        hostCalls.incrementAndGet();
        return delegate.call(host, deadline, libvirt -> work.apply(new CountingLibvirtHost(libvirt)));
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

    /** The adapter with every method counted and timed. */
    private final class CountingLibvirtHost implements LibvirtHost {
        private final LibvirtHost libvirt;

        CountingLibvirtHost(LibvirtHost libvirt) {
            this.libvirt = libvirt;
        }

        private <T> T counted(String method, Supplier<T> call) {
            calls.computeIfAbsent(method, key -> new LongAdder()).increment();
            long started = System.nanoTime();
            try {
                return call.get();
            } finally {
                nanos.computeIfAbsent(method, key -> new LongAdder()).add(System.nanoTime() - started);
            }
        }

        private void counted(String method, Runnable call) {
            counted(method, () -> {
                call.run();
                return null;
            });
        }

        @Override
        public Optional<Domain> lookupDomain(String name) {
            return counted("lookupDomain", () -> libvirt.lookupDomain(name));
        }

        @Override
        public Domain defineDomain(String xml) {
            return counted("defineDomain", () -> libvirt.defineDomain(xml));
        }

        @Override
        public void startDomain(Domain domain) {
            counted("startDomain", () -> libvirt.startDomain(domain));
        }

        @Override
        public void destroyDomain(Domain domain) {
            counted("destroyDomain", () -> libvirt.destroyDomain(domain));
        }

        @Override
        public void undefineDomain(Domain domain) {
            counted("undefineDomain", () -> libvirt.undefineDomain(domain));
        }

        @Override
        public DomainState domainState(Domain domain) {
            return counted("domainState", () -> libvirt.domainState(domain));
        }

        @Override
        public Optional<String> domainMetadata(Domain domain, String namespaceUri) {
            return counted("domainMetadata", () -> libvirt.domainMetadata(domain, namespaceUri));
        }

        @Override
        public List<InterfaceAddress> interfaceAddresses(Domain domain, AddressSource source) {
            return counted("interfaceAddresses(" + source + ")", () -> libvirt.interfaceAddresses(domain, source));
        }

        @Override
        public List<Domain> listAllDomains() {
            return counted("listAllDomains", () -> libvirt.listAllDomains());
        }

        @Override
        public List<Domain> listAllDomains(boolean active) {
            return counted(active ? "listAllDomains(active)" : "listAllDomains(inactive)",
                    () -> libvirt.listAllDomains(active));
        }

        @Override
        public Optional<StoragePool> lookupPool(String name) {
            return counted("lookupPool", () -> libvirt.lookupPool(name));
        }

        @Override
        public PoolInfo poolInfo(StoragePool pool) {
            return counted("poolInfo", () -> libvirt.poolInfo(pool));
        }

        @Override
        public void refreshPool(StoragePool pool) {
            counted("refreshPool", () -> libvirt.refreshPool(pool));
        }

        @Override
        public Optional<StorageVolume> lookupVolume(StoragePool pool, String name) {
            return counted("lookupVolume", () -> libvirt.lookupVolume(pool, name));
        }

        @Override
        public StorageVolume createVolume(StoragePool pool, String xml) {
            return counted("createVolume", () -> libvirt.createVolume(pool, xml));
        }

        @Override
        public void uploadVolume(StorageVolume volume, InputStream data, long length) {
            counted("uploadVolume", () -> libvirt.uploadVolume(volume, data, length));
        }

        @Override
        public byte[] downloadVolume(StorageVolume volume, int maximumBytes) {
            return counted("downloadVolume", () -> libvirt.downloadVolume(volume, maximumBytes));
        }

        @Override
        public void deleteVolume(StorageVolume volume) {
            counted("deleteVolume", () -> libvirt.deleteVolume(volume));
        }

        @Override
        public HostInfo hostInfo() {
            return counted("hostInfo", libvirt::hostInfo);
        }
    }
}

package dev.egressproxies.kvm.common.testing;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.kvm.common.host.HostCallException;
import dev.egressproxies.kvm.common.host.HostDialer;
import dev.egressproxies.kvm.common.host.HostEndpoint;
import dev.egressproxies.kvm.common.host.HostLink;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A dialer of links to fake hosts, for tests that run through kvm-common's real connection pool:
 * each dial makes a new link named {@code HOST#N} whose libvirt is the host seen
 * {@linkplain FakeLibvirtHost#through through that link}, so a test sees which connection made
 * which call, and which links were dialled, aborted and closed.
 */
public final class FakeLinkDialer implements HostDialer {
    private final Map<String, FakeLibvirtHost> hosts = new ConcurrentHashMap<>();
    private final AtomicInteger dials = new AtomicInteger();
    private final List<String> dialled = new CopyOnWriteArrayList<>();
    private final List<String> aborted = new CopyOnWriteArrayList<>();
    private final List<String> closed = new CopyOnWriteArrayList<>();

    /** Adds a host, reached under its name. */
    public FakeLinkDialer with(FakeLibvirtHost host) {
        hosts.put(host.hostName(), host);
        return this;
    }

    @Override
    public HostLink dial(HostEndpoint endpoint, Deadline deadline) {
        FakeLibvirtHost host = hosts.get(endpoint.name());
        if (host == null) {
            throw new HostCallException(HostCallException.Reason.UNREACHABLE, endpoint.name(), "no such fake host",
                    null);
        }
        String name = endpoint.name() + "#" + dials.incrementAndGet();
        dialled.add(name);
        return new Link(name, host.through(name));
    }

    /** The links dialled, in order. */
    public List<String> dialled() {
        return List.copyOf(dialled);
    }

    /** The links aborted (a caller's deadline passed while they worked), in order. */
    public List<String> aborted() {
        return List.copyOf(aborted);
    }

    /** The links closed, in order. */
    public List<String> closed() {
        return List.copyOf(closed);
    }

    /** A link to a fake host; alive until aborted or closed. */
    private final class Link implements HostLink {
        private final String name;
        private final LibvirtHost libvirt;
        private volatile boolean alive = true;

        Link(String name, LibvirtHost libvirt) {
            this.name = name;
            this.libvirt = libvirt;
        }

        @Override
        public LibvirtHost libvirt() {
            return libvirt;
        }

        @Override
        public boolean isAlive() {
            return alive;
        }

        @Override
        public void abort() {
            alive = false;
            aborted.add(name);
        }

        @Override
        public void close() {
            alive = false;
            if (!closed.contains(name)) {
                closed.add(name);
            }
        }
    }
}

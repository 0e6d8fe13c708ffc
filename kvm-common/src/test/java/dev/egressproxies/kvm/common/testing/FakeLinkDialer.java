package dev.egressproxies.kvm.common.testing;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.host.HostDialer;
import dev.egressproxies.kvm.common.host.HostEndpoint;
import dev.egressproxies.kvm.common.host.HostLink;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A dialer of links to fake hosts, for tests that run through kvm-common's real host pool: each
 * dial makes a new link named {@code HOST#N} whose libvirt is the host seen
 * {@linkplain FakeLibvirtHost#through through that link}, so a test sees which connection made
 * which call, and which links were dialled, aborted and closed. A host can be broken: its links
 * die and its dials fail as an unreachable or a misconfigured host's would.
 */
public final class FakeLinkDialer implements HostDialer {
    private final Map<String, FakeLibvirtHost> hosts = new ConcurrentHashMap<>();
    private final Map<String, ErrorKind> broken = new ConcurrentHashMap<>();
    private final AtomicInteger dials = new AtomicInteger();
    private final List<String> dialled = new CopyOnWriteArrayList<>();
    private final List<String> aborted = new CopyOnWriteArrayList<>();
    private final List<String> closed = new CopyOnWriteArrayList<>();
    private final List<HostEndpoint> calls = new CopyOnWriteArrayList<>();

    /** Adds a host, reached under its name. */
    public FakeLinkDialer with(FakeLibvirtHost host) {
        hosts.put(host.hostName(), host);
        return this;
    }

    /**
     * Breaks the host: its links die, and dials fail TRANSIENT (unreachable) or PERMANENT
     * (misconfigured) as {@code kind} says.
     */
    public void breakHost(String hostName, ErrorKind kind) {
        broken.put(hostName, kind);
    }

    @Override
    public HostLink dial(HostEndpoint endpoint, Call dial) {
        ErrorKind breakage = broken.get(endpoint.name());
        if (breakage != null) {
            calls.add(endpoint);
            throw dial.failure(breakage, "injected: host " + endpoint.name() + " is broken", null);
        }
        FakeLibvirtHost host = hosts.get(endpoint.name());
        if (host == null) {
            throw dial.transientFailure("no such fake host", null);
        }
        String name = endpoint.name() + "#" + dials.incrementAndGet();
        dialled.add(name);
        return new Link(name, endpoint, host.through(name));
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

    /**
     * Whether every link dialled so far gets closed within five seconds: the pool closes its links
     * on its own threads.
     */
    public boolean awaitAllClosed() throws InterruptedException {
        return !dialled.isEmpty() && awaitClosed(dialled.size()).containsAll(dialled);
    }

    /** The links closed once {@code count} are, or five seconds passed: the pool closes them on its own threads. */
    public List<String> awaitClosed(int count) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (closed.size() < count && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        return closed();
    }

    /**
     * The endpoints of the host calls made, in order: the pool asks a link for its libvirt once a
     * call, and a call to a broken host counts at its failed dial.
     */
    public List<HostEndpoint> endpoints() {
        return List.copyOf(calls);
    }

    /** How many host calls were made. */
    public int callCount() {
        return calls.size();
    }

    /** A link to a fake host; alive until aborted, closed or its host is broken. */
    private final class Link implements HostLink {
        private final String name;
        private final HostEndpoint endpoint;
        private final LibvirtHost libvirt;
        private volatile boolean alive = true;

        Link(String name, HostEndpoint endpoint, LibvirtHost libvirt) {
            this.name = name;
            this.endpoint = endpoint;
            this.libvirt = libvirt;
        }

        @Override
        public LibvirtHost libvirt() {
            calls.add(endpoint);
            return libvirt;
        }

        @Override
        public boolean isAlive() {
            return alive && !broken.containsKey(endpoint.name());
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

package dev.egressproxies.kvm.common.testing;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.kvm.common.host.HostCall;
import dev.egressproxies.kvm.common.host.HostCallException;
import dev.egressproxies.kvm.common.host.HostConnections;
import dev.egressproxies.kvm.common.host.HostEndpoint;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Host connections that run the work directly on fake hosts, in the calling thread, with what the
 * real pool promises around it: a passed deadline or an interrupt fails the call before the work
 * runs, and a host can be made unreachable or misconfigured.
 */
public final class DirectHostConnections implements HostConnections {
    private final Map<String, LibvirtHost> hosts = new ConcurrentHashMap<>();
    private final Map<String, HostCallException.Reason> broken = new ConcurrentHashMap<>();
    private final List<HostEndpoint> endpoints = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    /** Adds a host reached under its configured name. */
    public DirectHostConnections with(String hostName, LibvirtHost libvirt) {
        hosts.put(hostName, libvirt);
        return this;
    }

    /** Makes every call to the host fail with {@code reason}, as the real pool would. */
    public void breakHost(String hostName, HostCallException.Reason reason) {
        broken.put(hostName, reason);
    }

    /** The endpoints of the calls made, in order. */
    public List<HostEndpoint> endpoints() {
        return List.copyOf(endpoints);
    }

    /** How many host calls were made. */
    public int callCount() {
        return endpoints.size();
    }

    /** Whether {@link #close()} was called. */
    public boolean closed() {
        return closed;
    }

    @Override
    public <T> T call(HostEndpoint host, Deadline deadline, HostCall<T> work) {
        if (closed) {
            throw new IllegalStateException("the connections are closed");
        }
        endpoints.add(host);
        HostCallException.Reason reason = broken.get(host.name());
        if (reason != null) {
            throw new HostCallException(reason, host.name(), "injected: host " + host.name() + " is " + reason, null);
        }
        if (Thread.currentThread().isInterrupted()) {
            throw new HostCallException(HostCallException.Reason.INTERRUPTED, host.name(), "interrupted", null);
        }
        if (deadline.isExpired()) {
            throw new HostCallException(HostCallException.Reason.DEADLINE_EXCEEDED, host.name(), "deadline passed", null);
        }
        LibvirtHost libvirt = hosts.get(host.name());
        if (libvirt == null) {
            throw new HostCallException(HostCallException.Reason.UNREACHABLE, host.name(), "no such host", null);
        }
        return work.apply(libvirt);
    }

    @Override
    public void close() {
        closed = true;
    }
}

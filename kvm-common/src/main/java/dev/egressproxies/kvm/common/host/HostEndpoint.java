package dev.egressproxies.kvm.common.host;

import java.util.Objects;

/**
 * How to reach one hypervisor: over SSH to {@code address:port} as {@code user}, then to the
 * libvirt unix socket at {@code socket} on that host.
 */
public record HostEndpoint(String name, String address, int port, String user, String socket) {
    /** Requires every field. */
    public HostEndpoint {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(socket, "socket");
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is not a TCP port");
        }
    }
}

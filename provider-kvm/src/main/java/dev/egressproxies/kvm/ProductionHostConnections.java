package dev.egressproxies.kvm;

import dev.egressproxies.api.spi.ProviderContext;
import dev.egressproxies.kvm.common.host.CachingHostConnections;
import dev.egressproxies.kvm.common.host.HostConnections;
import dev.egressproxies.kvm.common.ssh.HostKeyPolicy;
import dev.egressproxies.kvm.common.ssh.SshHostDialer;
import dev.egressproxies.kvm.common.ssh.SshTunnelSettings;
import dev.egressproxies.kvm.config.KvmConfig;
import dev.egressproxies.kvm.config.KvmHost;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The production wiring of a {@code kvm} entry's host connections: per host, kvm-common's SSH
 * tunnel ({@link #tunnelSettings}: key from {@code sshKeyFile}, host keys from
 * {@code knownHostsFile} unless {@code insecureIgnoreHostKey}, {@code handshakeTimeout},
 * {@code keepaliveInterval}) forwarding the host's libvirt socket, libvirt-java connected to the
 * forwarded socket, and kvm-common's caching connection pool around both. Nothing is dialled
 * here: the first call to a host dials it.
 */
final class ProductionHostConnections implements HostConnectionsFactory {

    @Override
    public HostConnections open(String entryName, KvmConfig config, ProviderContext context) {
        Map<String, KvmHost> hosts = config.hosts().stream()
                .collect(Collectors.toUnmodifiableMap(KvmHost::name, Function.identity()));
        SshHostDialer dialer = new SshHostDialer(endpoint -> tunnelSettings(config, hosts.get(endpoint.name())));
        // The whole dial (SSH handshake, then libvirt's own handshake) gets the handshake budget
        // twice over; each caller still waits no longer than its own deadline.
        return new CachingHostConnections(dialer, config.handshakeTimeout().multipliedBy(2));
    }

    /**
     * The SSH tunnel settings of one host of the entry. The key and known_hosts files are read by
     * the tunnel at each dial, so a key mounted after startup heals the next call.
     */
    static SshTunnelSettings tunnelSettings(KvmConfig config, KvmHost host) {
        HostKeyPolicy hostKeys = config.insecureIgnoreHostKey()
                ? HostKeyPolicy.insecureIgnoreHostKey()
                : HostKeyPolicy.knownHosts(config.knownHostsFile());
        return SshTunnelSettings.of(host.address(), host.port(), host.user(), config.sshKeyFile(), hostKeys,
                        host.socket())
                .withHandshakeTimeout(config.handshakeTimeout())
                .withKeepalive(config.keepaliveInterval(), SshTunnelSettings.DEFAULT_KEEPALIVE_MAX_MISSED);
    }
}

package dev.egressproxies.kvm;

import dev.egressproxies.api.spi.ProviderContext;
import dev.egressproxies.kvm.common.config.SshAccess;
import dev.egressproxies.kvm.common.host.CachingHostConnections;
import dev.egressproxies.kvm.common.host.HostConnections;
import dev.egressproxies.kvm.common.ssh.SshTunnelSettings;
import dev.egressproxies.kvm.config.KvmConfig;
import dev.egressproxies.kvm.config.KvmHost;

/**
 * The production wiring of a {@code kvm} entry's host connections: kvm-common's SSH dialer
 * ({@link SshAccess#dialer}: key from {@code sshKeyFile}, host keys from {@code knownHostsFile}
 * unless {@code insecureIgnoreHostKey}, {@code handshakeTimeout}, {@code keepaliveInterval})
 * forwarding each host's libvirt socket, and kvm-common's caching connection pool around it.
 * Nothing is dialled here: the first call to a host dials it.
 */
final class ProductionHostConnections implements HostConnectionsFactory {

    @Override
    public HostConnections open(String entryName, KvmConfig config, ProviderContext context) {
        SshAccess ssh = config.sshAccess();
        return new CachingHostConnections(ssh.dialer(config.hosts().stream().map(KvmHost::settings).toList()),
                ssh.dialTimeout());
    }

    /**
     * The SSH tunnel settings of one host of the entry. The key and known_hosts files are read by
     * the tunnel at each dial, so a key mounted after startup heals the next call.
     */
    static SshTunnelSettings tunnelSettings(KvmConfig config, KvmHost host) {
        return config.sshAccess().tunnelSettings(host.settings());
    }
}

package dev.egressproxies.integration.kvm;

import dev.egressproxies.api.spi.ProviderContext;
import dev.egressproxies.api.spi.ProviderFactory;
import dev.egressproxies.kvm.KvmProvider;
import dev.egressproxies.kvm.KvmProviderFactory;
import dev.egressproxies.kvm.common.host.HostDialer;
import dev.egressproxies.kvm.common.local.LocalSocketDialer;
import dev.egressproxies.kvm.config.KvmConfig;
import dev.egressproxies.kvm.config.KvmHost;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@code kvm} plugin for the benchmark: binds the same configuration as the real one (the
 * registry does that), and builds {@link KvmProvider}s whose libvirt calls are counted
 * ({@link CountingDialer}). Its hosts are reached like production's (SSH tunnel with the
 * entry's key, known_hosts, handshake timeout and keepalive, and twice the handshake timeout for
 * the whole dial), or, for comparison, through {@link LocalSocketDialer} on this machine, without
 * SSH.
 */
final class BenchmarkKvmProviderFactory implements ProviderFactory<KvmConfig> {
    /** How the providers reach their hosts. */
    enum Transport {
        /** The SSH tunnel, as in production. */
        SSH,
        /** The local libvirt socket through an in-process relay, no SSH: the floor. */
        LOCAL_SOCKET
    }

    private final Transport transport;
    private final List<CountingDialer> connections = new ArrayList<>();
    private volatile KvmConfig lastConfig;

    BenchmarkKvmProviderFactory(Transport transport) {
        this.transport = transport;
    }

    @Override
    public String type() {
        return KvmProviderFactory.TYPE;
    }

    @Override
    public Class<KvmConfig> configType() {
        return KvmConfig.class;
    }

    @Override
    public KvmProvider create(String entryName, KvmConfig config, ProviderContext context) {
        CountingDialer counting = new CountingDialer(dialer(config));
        connections.add(counting);
        lastConfig = config;
        return new KvmProvider(entryName, config, context, counting);
    }

    /** The counting dialer of the last provider built. */
    CountingDialer lastConnections() {
        return connections.get(connections.size() - 1);
    }

    /** The configuration of the last provider built, as the registry bound it. */
    KvmConfig lastConfig() {
        return lastConfig;
    }

    /** The dialer of one entry: what the production factory does, or the local socket. */
    HostDialer dialer(KvmConfig config) {
        if (transport == Transport.LOCAL_SOCKET) {
            return new LocalSocketDialer();
        }
        return config.sshAccess().dialer(config.hosts().stream().map(KvmHost::settings).toList());
    }
}

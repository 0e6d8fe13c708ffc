package dev.egressproxies.kvm;

import dev.egressproxies.api.spi.ProviderContext;
import dev.egressproxies.kvm.common.host.HostConnections;
import dev.egressproxies.kvm.config.KvmConfig;

/**
 * The source of one provider entry's {@link HostConnections}: the seam between the factory and the SSH
 * and libvirt transport, so tests build providers on a fake.
 */
@FunctionalInterface
interface HostConnectionsFactory {
    /**
     * Makes the entry's connections. Does no network I/O: hosts are dialled on first use.
     *
     * @throws dev.egressproxies.api.ProviderException PERMANENT, operation CONFIGURE, when the
     *                                                 settings cannot work
     */
    HostConnections open(String entryName, KvmConfig config, ProviderContext context);
}

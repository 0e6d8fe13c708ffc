package dev.egressproxies.kvm2;

import dev.egressproxies.api.spi.ProviderContext;
import dev.egressproxies.kvm.common.host.HostDialer;
import dev.egressproxies.kvm2.config.Kvm2Config;

/**
 * The source of one provider entry's {@link HostDialer}: the seam between the factory and the SSH
 * and libvirt transport, so tests build providers on fakes.
 */
@FunctionalInterface
interface HostDialerFactory {
    /** Makes the entry's dialer. Does no network I/O: hosts are dialled on first use. */
    HostDialer dialer(String entryName, Kvm2Config config, ProviderContext context);
}

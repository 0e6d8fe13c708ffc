package dev.egressproxies.kvm;

import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import dev.egressproxies.kvm.common.libvirt.StoragePool;
import dev.egressproxies.kvm.config.KvmHost;

/**
 * The lookup of a host's configured storage pool, where a missing pool is a configuration error.
 */
final class Pools {
    private Pools() {
    }

    /**
     * The host's pool.
     *
     * @throws dev.egressproxies.api.ProviderException PERMANENT when it does not exist
     */
    static StoragePool require(LibvirtHost libvirt, KvmHost host, Call call) {
        return LibvirtSteps.step("looking up storage pool " + host.pool(), () -> libvirt.lookupPool(host.pool()))
                .orElseThrow(() -> call.permanent(missing(host, call.entry())));
    }

    /** What to do about a missing pool. */
    static String missing(KvmHost host, String entry) {
        return "storage pool '" + host.pool() + "' does not exist on host '" + host.name() + "': create and start it"
                + " (for example 'virsh pool-define-as " + host.pool() + " dir --target /var/lib/libvirt/images/"
                + host.pool() + " && virsh pool-build " + host.pool() + " && virsh pool-start " + host.pool()
                + " && virsh pool-autostart " + host.pool() + "'), or set hosts[].pool of provider entry '" + entry
                + "' to an existing pool";
    }
}

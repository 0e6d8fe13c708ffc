package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.PoolInfo;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StoragePool;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import java.util.Optional;

/** A host's configured storage pool, where a missing pool, or one that does not run, is a configuration error. */
public final class Pools {
    private Pools() {
    }

    /** The host's pool; PERMANENT when it does not exist. */
    public static StoragePool require(LibvirtHost libvirt, HostSettings host, Call call) {
        return find(libvirt, host).orElseThrow(() -> call.permanent("storage pool '" + host.pool() + "' does not"
                + " exist on host '" + host.name() + "': create and start it (for example 'virsh pool-define-as "
                + host.pool() + " dir --target /var/lib/libvirt/images/" + host.pool() + " && virsh pool-build "
                + host.pool() + " && virsh pool-start " + host.pool() + " && virsh pool-autostart " + host.pool()
                + "'), or set hosts[].pool of provider entry '" + call.entry() + "' to an existing pool"));
    }

    /** The pool's state and space; PERMANENT when it is not running. */
    public static PoolInfo requireRunning(LibvirtHost libvirt, StoragePool pool, HostSettings host, Call call) {
        PoolInfo info = LibvirtSteps.step("reading storage pool " + host.pool(), () -> libvirt.poolInfo(pool));
        if (!info.running()) {
            throw call.permanent("storage pool '" + host.pool() + "' exists on host '" + host.name() + "' but is not"
                    + " running: start it with 'virsh pool-start " + host.pool() + "' and keep it running with"
                    + " 'virsh pool-autostart " + host.pool() + "'");
        }
        return info;
    }

    static Optional<StoragePool> find(LibvirtHost libvirt, HostSettings host) {
        return LibvirtSteps.step("looking up storage pool " + host.pool(), () -> libvirt.lookupPool(host.pool()));
    }
}

package dev.egressproxies.kvm.common.teststack;

import dev.egressproxies.kvm.common.libvirt.LibvirtErrorCode;
import dev.egressproxies.kvm.common.libvirt.LibvirtException;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.Domain;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StoragePool;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a test made on the real libvirtd, removed afterwards whether the test passed or not, so
 * that no domain or volume is left behind.
 */
public final class Leftovers {
    private final List<String> domains = new ArrayList<>();
    private final List<String> volumes = new ArrayList<>();

    /** Registers a domain name before it is defined, so a failure halfway still cleans it. */
    public String domain(String name) {
        domains.add(name);
        return name;
    }

    /** Registers a volume name (in the stack's pool) before it is created. */
    public String volume(String name) {
        volumes.add(name);
        return name;
    }

    /** Destroys and undefines the domains, then deletes the volumes (overlays before their bases). */
    public void removeAll(LibvirtHost libvirt, String poolName) {
        for (String name : domains) {
            Optional<Domain> domain = libvirt.lookupDomain(name);
            if (domain.isPresent()) {
                try {
                    libvirt.destroyDomain(domain.get());
                } catch (LibvirtException e) {
                    if (!e.is(LibvirtErrorCode.OPERATION_INVALID)) {
                        throw e;
                    }
                }
                libvirt.undefineDomain(domain.get());
            }
        }
        Optional<StoragePool> pool = libvirt.lookupPool(poolName);
        if (pool.isPresent()) {
            for (int index = volumes.size() - 1; index >= 0; index--) {
                libvirt.lookupVolume(pool.get(), volumes.get(index)).ifPresent(libvirt::deleteVolume);
            }
        }
        domains.clear();
        volumes.clear();
    }
}

package dev.egressproxies.kvm.common.host;

import dev.egressproxies.kvm.common.libvirt.LibvirtHost;

/**
 * Work done against one host's libvirt within a call of the host pool.
 *
 * @param <T> what the work returns
 */
@FunctionalInterface
public interface HostCall<T> {
    /** Does the work; may throw {@link dev.egressproxies.kvm.common.libvirt.LibvirtException}. */
    T apply(LibvirtHost libvirt);
}

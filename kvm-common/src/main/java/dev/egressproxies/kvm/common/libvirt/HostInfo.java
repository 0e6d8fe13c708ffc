package dev.egressproxies.kvm.common.libvirt;

/**
 * What a host's libvirt says about itself.
 *
 * @param hostname       the host's name
 * @param libvirtVersion the daemon's version, like {@code 9.0.0}
 * @param hypervisor     the hypervisor driver, like {@code QEMU}
 */
public record HostInfo(String hostname, String libvirtVersion, String hypervisor) {
}

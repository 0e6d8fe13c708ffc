package dev.egressproxies.kvm.common.libvirt;

/** What a host's libvirt says about itself: host name, daemon version ({@code 9.0.0}), hypervisor ({@code QEMU}). */
public record HostInfo(String hostname, String libvirtVersion, String hypervisor) {
}

package dev.egressproxies.kvm.common.libvirt;

/** One address, as text, of a domain's network interface. */
public record InterfaceAddress(String interfaceName, String address, boolean ipv4) {
}

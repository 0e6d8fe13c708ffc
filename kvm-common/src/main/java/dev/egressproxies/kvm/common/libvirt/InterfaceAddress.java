package dev.egressproxies.kvm.common.libvirt;

/**
 * One address of a domain's network interface.
 *
 * @param interfaceName the interface's name as the source reports it
 * @param address       the address, as text
 * @param ipv4          whether it is an IPv4 address
 */
public record InterfaceAddress(String interfaceName, String address, boolean ipv4) {
}

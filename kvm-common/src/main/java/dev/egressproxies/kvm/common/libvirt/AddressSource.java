package dev.egressproxies.kvm.common.libvirt;

/** Where libvirt looks for a domain's addresses: DHCP leases, the guest agent, the host's ARP table. */
public enum AddressSource {
    LEASE, AGENT, ARP
}

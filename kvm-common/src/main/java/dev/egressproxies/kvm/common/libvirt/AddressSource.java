package dev.egressproxies.kvm.common.libvirt;

/** Where libvirt looks for a domain's addresses ({@code virDomainInterfaceAddressesSource}). */
public enum AddressSource {
    /** The DHCP leases of a libvirt network. */
    LEASE,
    /** The guest agent inside the domain. */
    AGENT,
    /** The host's ARP table. */
    ARP
}

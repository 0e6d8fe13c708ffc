/**
 * The libvirt XML of the first KVM backend: what a domain and a volume are made of, how they are
 * written, and the platform's metadata element, read back from domains.
 */
package dev.egressproxies.kvm.xml;

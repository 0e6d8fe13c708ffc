package dev.egressproxies.kvm.common.libvirt;

/**
 * A domain handle of {@link LibvirtJavaHost}: libvirt-java's object, the host that made it and
 * the name read once (libvirt keeps it client-side, but reading it again costs a native call).
 */
record JavaDomain(LibvirtJavaHost owner, org.libvirt.Domain domain, String name) implements Domain {
}

/**
 * What the KVM backends share: the SSH tunnel that forwards a hypervisor's libvirt socket, the
 * libvirt adapter (libvirt-java over JNA) and the pool of host connections, the local unix-socket
 * dialer, the domain and volume XML, and the NoCloud seed ISO that hands cloud-init its
 * configuration, written in-process by a small ECMA-119 plus Joliet writer.
 */
module dev.egressproxies.kvm.common {
    requires transitive dev.egressproxies.api;
    requires java.xml;
    requires org.apache.sshd.osgi;
    requires org.slf4j;
    // libvirt-java's jar has no module name of its own; "libvirt" is the name derived from it.
    requires libvirt;
    // libvirt-java's POM marks JNA "provided" and an automatic module declares no dependencies,
    // so JNA enters the module graph only through this line.
    requires com.sun.jna;

    exports dev.egressproxies.kvm.common.seed;
    exports dev.egressproxies.kvm.common.libvirt;
    exports dev.egressproxies.kvm.common.host;
    exports dev.egressproxies.kvm.common.ssh;
    exports dev.egressproxies.kvm.common.local;
    exports dev.egressproxies.kvm.common.xml;
}

/**
 * What the KVM backends share: the SSH tunnel that forwards a hypervisor's libvirt socket, the
 * libvirt adapter seam, the host-connection contract, and the NoCloud seed ISO that hands
 * cloud-init its configuration, written in-process by a small ECMA-119 plus Joliet writer.
 */
module dev.egressproxies.kvm.common {
    requires transitive dev.egressproxies.api;
    requires org.apache.sshd.osgi;
    requires org.slf4j;

    exports dev.egressproxies.kvm.common.seed;
    exports dev.egressproxies.kvm.common.libvirt;
    exports dev.egressproxies.kvm.common.host;
    exports dev.egressproxies.kvm.common.ssh;
}

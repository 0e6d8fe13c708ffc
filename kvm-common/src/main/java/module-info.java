/**
 * What the KVM backends share. So far: the NoCloud seed ISO that hands cloud-init its
 * configuration, written in-process by a small ECMA-119 plus Joliet writer.
 */
module dev.egressproxies.kvm.common {
    requires transitive dev.egressproxies.api;

    exports dev.egressproxies.kvm.common.seed;
    exports dev.egressproxies.kvm.common.libvirt;
    exports dev.egressproxies.kvm.common.host;
}

/**
 * What the KVM backends share. So far: the NoCloud seed ISO that hands cloud-init its
 * configuration, written in-process by a small ECMA-119 plus Joliet writer.
 */
module dev.egressproxies.kvm.common {
    exports dev.egressproxies.kvm.common.seed;
}

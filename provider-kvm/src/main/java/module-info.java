/**
 * The first KVM backend of egress-proxies, selected by {@code type: kvm}: VMs as libvirt domains on
 * hypervisors reached over SSH, with cached base images, qcow2 overlays and NoCloud seeds.
 */
module dev.egressproxies.kvm {
    requires transitive dev.egressproxies.api;
    requires transitive dev.egressproxies.kvm.common;
    requires org.slf4j;

    exports dev.egressproxies.kvm;
    exports dev.egressproxies.kvm.config;

    // The platform binds KvmConfig and its parts reflectively (Jackson); plugins must not name
    // the binding library, so the package is opened to everyone.
    opens dev.egressproxies.kvm.config;

    provides dev.egressproxies.api.spi.ProviderFactory with dev.egressproxies.kvm.KvmProviderFactory;
}

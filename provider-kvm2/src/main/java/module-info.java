/**
 * The second KVM backend of egress-proxies, selected by {@code type: kvm2}: VMs as libvirt domains
 * on hypervisors reached over SSH (kvm-common's instance engine), booting images named by a
 * catalogue key or an http(s) URL, fetched (and decompressed) on the fly into a digest-pinned base
 * volume per host, with a quota precheck, per-call and per-transfer time budgets, and
 * OpenTelemetry spans.
 */
// The name ends in a digit because the backend's type and package are kvm2; javac's lint advises
// against terminal digits, which matter only for names that may be versioned.
@SuppressWarnings("module")
module dev.egressproxies.kvm2 {
    requires transitive dev.egressproxies.api;
    requires transitive dev.egressproxies.kvm.common;
    requires org.slf4j;
    // Spans are made current (Scope) so the download span is a child of the create it serves.
    requires io.opentelemetry.context;

    exports dev.egressproxies.kvm2;
    exports dev.egressproxies.kvm2.config;

    // The platform binds Kvm2Config and its parts reflectively (Jackson); plugins must not name the
    // binding library, so the package is opened to everyone.
    opens dev.egressproxies.kvm2.config;

    provides dev.egressproxies.api.spi.ProviderFactory with dev.egressproxies.kvm2.Kvm2ProviderFactory;
}

/**
 * What the KVM backends share: the instance engine (the abstract {@code Provider} a backend extends
 * with its base-image strategy), the host pool over SSH or a local socket, the libvirt adapter, the
 * domain and volume XML, the NoCloud seed ISO, the image fetch pipeline and the shared settings.
 * Package map: docs/design.md.
 */
module dev.egressproxies.kvm.common {
    requires transitive dev.egressproxies.api;
    requires java.xml;
    requires org.apache.sshd.osgi;
    // Ed25519 for MINA SSHD (Ed25519Registrar); its classes are named, not imported.
    requires org.bouncycastle.provider;
    requires org.slf4j;
    requires libvirt; // the name derived from libvirt-java's jar
    // libvirt-java's POM marks JNA "provided", so JNA enters the module graph only through this line.
    requires com.sun.jna;
    requires org.apache.commons.compress;
    requires org.apache.commons.io;
    // Commons Compress declares its xz and zstd decoders "requires static": without these, such images fail.
    requires org.tukaani.xz;
    requires com.github.luben.zstd_jni;

    exports dev.egressproxies.kvm.common;
    exports dev.egressproxies.kvm.common.seed;
    exports dev.egressproxies.kvm.common.libvirt;
    exports dev.egressproxies.kvm.common.host;
    exports dev.egressproxies.kvm.common.ssh;
    exports dev.egressproxies.kvm.common.local;
    exports dev.egressproxies.kvm.common.xml;
    exports dev.egressproxies.kvm.common.image;
    exports dev.egressproxies.kvm.common.config;
    exports dev.egressproxies.kvm.common.instance;

    // The platform binds HostSettings and MachineSize reflectively; plugins must not name the binding library.
    opens dev.egressproxies.kvm.common.config;
}

package dev.egressproxies.kvm.common.libvirt;

/** A handle to a domain on one host, valid while its connection lives. */
public interface Domain {
    /** The domain's name. */
    String name();
}

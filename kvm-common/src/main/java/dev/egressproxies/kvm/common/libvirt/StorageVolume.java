package dev.egressproxies.kvm.common.libvirt;

/** A handle to a storage volume on one host, valid while its connection lives. */
public interface StorageVolume {
    /** The volume's name within its pool. */
    String name();

    /** The volume's path on the host, as a domain's disk refers to it. */
    String path();
}

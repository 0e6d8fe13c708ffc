package dev.egressproxies.kvm.common.libvirt;

/** A handle to a storage pool on one host, valid while its connection lives. */
public interface StoragePool {
    /** The pool's name. */
    String name();
}

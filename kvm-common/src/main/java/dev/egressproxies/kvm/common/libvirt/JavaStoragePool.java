package dev.egressproxies.kvm.common.libvirt;

/** A storage pool handle of {@link LibvirtJavaHost}: libvirt-java's object and the host that made it. */
record JavaStoragePool(LibvirtJavaHost owner, org.libvirt.StoragePool pool, String name) implements StoragePool {
}

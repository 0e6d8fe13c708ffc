package dev.egressproxies.kvm.common.libvirt;

import org.libvirt.StorageVol;

/**
 * A storage volume handle of {@link LibvirtJavaHost}: libvirt-java's object, the host that made
 * it, and the name and path read when it was looked up or created.
 */
record JavaStorageVolume(LibvirtJavaHost owner, StorageVol volume, String name, String path)
        implements StorageVolume {
}

package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.kvm.common.libvirt.LibvirtErrorCode;
import dev.egressproxies.kvm.common.libvirt.LibvirtException;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StoragePool;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StorageVolume;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import java.io.ByteArrayInputStream;
import java.util.Optional;

/** Volume steps where a volume that is already gone counts as removed. */
public final class Volumes {
    private Volumes() {
    }

    /** Deletes the named volume if the pool has it; returns whether there was one. */
    public static boolean deleteIfPresent(LibvirtHost libvirt, StoragePool pool, String name) {
        Optional<StorageVolume> volume = lookup(libvirt, pool, name);
        volume.ifPresent(present -> delete(libvirt, present));
        return volume.isPresent();
    }

    /** Writes {@code content} into the new {@code volume}, deleting it on failure: empty, it reads as debris. */
    public static void fill(LibvirtHost libvirt, StorageVolume volume, byte[] content, String step) {
        try {
            LibvirtSteps.run(step, () -> libvirt.uploadVolume(volume, new ByteArrayInputStream(content),
                    content.length));
        } catch (RuntimeException failure) {
            try {
                delete(libvirt, volume);
            } catch (RuntimeException cleanup) {
                failure.addSuppressed(cleanup);
            }
            throw failure;
        }
    }

    /** Deletes the volume; one that is gone meanwhile counts as deleted. */
    public static void delete(LibvirtHost libvirt, StorageVolume volume) {
        try {
            LibvirtSteps.run("deleting volume " + volume.name(), () -> libvirt.deleteVolume(volume));
        } catch (LibvirtException gone) {
            if (!gone.is(LibvirtErrorCode.NO_STORAGE_VOLUME)) {
                throw gone;
            }
        }
    }

    static Optional<StorageVolume> lookup(LibvirtHost libvirt, StoragePool pool, String name) {
        return LibvirtSteps.step("looking up volume " + name, () -> libvirt.lookupVolume(pool, name));
    }

    /** Creates the volume {@code xml} describes in the step named {@code step}; empty when its name is taken. */
    static Optional<StorageVolume> createUnlessExists(LibvirtHost libvirt, StoragePool pool, String xml, String step) {
        try {
            return Optional.of(LibvirtSteps.step(step, () -> libvirt.createVolume(pool, xml)));
        } catch (LibvirtException exists) {
            if (exists.is(LibvirtErrorCode.STORAGE_VOLUME_EXISTS)) {
                return Optional.empty();
            }
            throw exists;
        }
    }
}

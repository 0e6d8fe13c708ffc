package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.kvm.common.xml.DiskFormat;

/** The image a create request's placement names, as a backend resolved it for the instance engine. */
public interface ImageChoice {

    /** The disk format of the base volume, which the overlay names as its backing format. */
    DiskFormat format();

    /** Whether VMs of this image boot with UEFI (the host's firmware paths) rather than BIOS. */
    boolean uefi();
}

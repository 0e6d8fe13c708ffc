package dev.egressproxies.kvm.common.image;

/** Whether a published image file is the disk image or a tar archive holding it, as some clouds publish. */
public enum Archive {
    /** The (decompressed) file is the disk image. */
    NONE,
    /** The (decompressed) file is a tar archive; one regular file in it is the disk image. */
    TAR
}

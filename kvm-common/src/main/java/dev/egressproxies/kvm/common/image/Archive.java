package dev.egressproxies.kvm.common.image;

/**
 * Whether a published image file is the disk image itself or an archive that holds it as one of its
 * members, like the raw disk inside a {@code .tar.gz} that some clouds publish.
 */
public enum Archive {
    /** The (decompressed) file is the disk image. */
    NONE,
    /** The (decompressed) file is a tar archive; one regular file in it is the disk image. */
    TAR
}

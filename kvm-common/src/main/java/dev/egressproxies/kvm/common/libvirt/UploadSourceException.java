package dev.egressproxies.kvm.common.libvirt;

/**
 * The data handed to {@link LibvirtHost#uploadVolume} could not be read, or ended before the
 * announced length. The upload was aborted, so the volume holds a partial write and must not be
 * used.
 */
public final class UploadSourceException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Creates an exception. */
    public UploadSourceException(String message, Throwable cause) {
        super(message, cause);
    }
}

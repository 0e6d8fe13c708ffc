package dev.egressproxies.kvm.common.libvirt;

import org.libvirt.Error;
import org.libvirt.Error.ErrorNumber;

/** Turns libvirt-java's exceptions into this module's {@link LibvirtException}, keeping libvirt's error number. */
final class LibvirtJavaErrors {
    /** The number {@link LibvirtErrorCode#OTHER} stands for: libvirt-java did not know the code. */
    private static final int UNKNOWN_NUMBER = -1;

    private LibvirtJavaErrors() {
    }

    /** The exception for what libvirt-java threw. */
    static LibvirtException translate(org.libvirt.LibvirtException exception) {
        Error error = exception.getError();
        int number = errorNumber(error);
        String message = error == null ? null : error.getMessage();
        if (message == null || message.isBlank()) {
            message = "libvirt reported error number " + number + " without a message";
        }
        return new LibvirtException(number, message, exception);
    }

    /**
     * libvirt's {@code virErrorNumber}. libvirt-java's enum lists the codes in libvirt's order, so
     * the ordinal is the number, except for its catch-all for codes newer than the binding.
     */
    private static int errorNumber(Error error) {
        if (error == null || error.getCode() == null || error.getCode() == ErrorNumber.VIR_ERR_UNKNOWN) {
            return UNKNOWN_NUMBER;
        }
        return error.getCode().ordinal();
    }
}

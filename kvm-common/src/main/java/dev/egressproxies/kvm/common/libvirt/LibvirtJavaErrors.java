package dev.egressproxies.kvm.common.libvirt;

import org.libvirt.Error;
import org.libvirt.Error.ErrorDomain;
import org.libvirt.Error.ErrorNumber;

/** libvirt-java's exceptions as this module's {@link LibvirtException}, with code, source and OS error number. */
final class LibvirtJavaErrors {
    private static final int UNKNOWN_NUMBER = -1;

    private LibvirtJavaErrors() {
    }

    static LibvirtException translate(org.libvirt.LibvirtException exception) {
        return translate(exception.getError(), exception);
    }

    /** {@code cause} may be null. */
    static LibvirtException translate(Error error, Throwable cause) {
        int number = error == null ? UNKNOWN_NUMBER : number(error.getCode(), ErrorNumber.VIR_ERR_UNKNOWN);
        int source = error == null ? UNKNOWN_NUMBER : number(error.getDomain(), ErrorDomain.VIR_FROM_UNKNOWN);
        String message = error == null ? null : error.getMessage();
        if (message == null || message.isBlank()) {
            message = "libvirt reported error number " + number + " without a message";
        }
        return new LibvirtException(number, source, systemErrorNumber(error, number), message, cause);
    }

    /** libvirt-java's enums list libvirt's numbers in order, but for a catch-all for newer ones. */
    private static int number(Enum<?> value, Enum<?> unknown) {
        return value == null || value == unknown ? UNKNOWN_NUMBER : value.ordinal();
    }

    /** libvirt reports a failed OS call with the call's {@code errno} as the error's first integer. */
    private static int systemErrorNumber(Error error, int number) {
        if (error == null || number != LibvirtErrorCode.SYSTEM_ERROR.number() || error.getInt1() <= 0) {
            return LibvirtException.NO_SYSTEM_ERROR_NUMBER;
        }
        return error.getInt1();
    }
}

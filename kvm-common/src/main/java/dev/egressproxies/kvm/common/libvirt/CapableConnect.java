package dev.egressproxies.kvm.common.libvirt;

import com.sun.jna.Library;
import com.sun.jna.Native;
import org.libvirt.Connect;
import org.libvirt.Error;
import org.libvirt.jna.CString;
import org.libvirt.jna.ConnectionPointer;
import org.libvirt.jna.Libvirt;
import org.libvirt.jna.virError;

/**
 * A libvirt-java {@link Connect} that also reads domain capabilities, which libvirt-java 0.5.4 does
 * not bind: the function is called through JNA on the connection's native pointer, which the
 * binding keeps for its subclasses.
 */
final class CapableConnect extends Connect {
    /** The functions libvirt-java lacks, bound from the same native library. */
    interface MissingFunctions extends Library {
        CString virConnectGetDomainCapabilities(ConnectionPointer connection, String emulatorBinary, String arch,
                                                String machine, String virtType, int flags);
    }

    /** Initialization-on-demand holder: bound on first use, after libvirt-java loaded the library. */
    private static final class Bound {
        static final MissingFunctions FUNCTIONS = Native.load("virt", MissingFunctions.class);
    }

    CapableConnect(String uri) throws org.libvirt.LibvirtException {
        super(uri);
    }

    /**
     * libvirt's domain capabilities XML for guests of {@code arch} under {@code virtType}, with the
     * host's default emulator and machine.
     *
     * @throws LibvirtException what libvirt reported
     */
    String domainCapabilities(String arch, String virtType) {
        CString xml = Bound.FUNCTIONS.virConnectGetDomainCapabilities(vcp, null, arch, null, virtType, 0);
        if (xml == null) {
            // libvirt keeps the error of the failed call per thread, as libvirt-java reads it too.
            virError error = Libvirt.INSTANCE.virGetLastError();
            if (error == null) {
                throw new LibvirtException(LibvirtErrorCode.INTERNAL_ERROR.number(), LibvirtErrorSource.UNKNOWN.number(),
                        LibvirtException.NO_SYSTEM_ERROR_NUMBER, "libvirt returned no domain capabilities and no"
                        + " error", null);
            }
            throw LibvirtJavaErrors.translate(new Error(error), null);
        }
        // CString frees libvirt's copy once read.
        return xml.toString();
    }
}

package dev.egressproxies.kvm.common.libvirt;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.ErrorKind;
import org.junit.jupiter.api.Test;
import org.libvirt.Error;
import org.libvirt.jna.virError;

/**
 * The translation of libvirt-java's error records, with the fields this libvirt 9.0 sends for a
 * missing bridge, a broken socket and an error libvirt-java does not know.
 */
class LibvirtJavaErrorsTest {

    @Test
    void aMissingBridgeKeepsItsSourceAndErrorNumberAndIsPermanentOverAWorkingLink() {
        LibvirtException error = translate(38, 0, 19, "Cannot get interface MTU on 'nosuchbr0': No such device");

        assertThat(error.code()).isEqualTo(LibvirtErrorCode.SYSTEM_ERROR);
        assertThat(error.source()).isEqualTo(LibvirtErrorSource.NONE);
        assertThat(error.systemErrorNumber()).isEqualTo(19);
        assertThat(error.isTransportFailure()).isFalse();
        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
    }

    @Test
    void aSocketThatBrokeIsATransportFailure() {
        LibvirtException error = translate(38, 7, 5, "End of file while reading data: Input/output error");

        assertThat(error.source()).isEqualTo(LibvirtErrorSource.RPC);
        assertThat(error.isTransportFailure()).isTrue();
        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
    }

    @Test
    void onlyOsCallErrorsCarryAnErrorNumber() {
        LibvirtException error = translate(1, 31, 7, "internal error: Unknown CPU model NoSuchCpu");

        assertThat(error.systemErrorNumber()).isEqualTo(LibvirtException.NO_SYSTEM_ERROR_NUMBER);
        assertThat(error.source()).isEqualTo(LibvirtErrorSource.CPU);
    }

    private static LibvirtException translate(int code, int source, int int1, String message) {
        virError record = new virError();
        record.code = code;
        record.domain = source;
        record.int1 = int1;
        record.level = 2;
        record.message = message;
        return LibvirtJavaErrors.translate(new Error(record), null);
    }
}

package dev.egressproxies.kvm.common.libvirt;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.ErrorKind;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.libvirt.Error.ErrorNumber;

/**
 * The numbers behind the error codes, checked against libvirt-java's own list of {@code
 * virErrorNumber} (whose order is libvirt's, which is how the adapter reads numbers from it).
 */
class LibvirtErrorCodeTest {
    private static final Map<LibvirtErrorCode, ErrorNumber> LIBVIRT_NAMES = new EnumMap<>(Map.ofEntries(
            Map.entry(LibvirtErrorCode.INTERNAL_ERROR, ErrorNumber.VIR_ERR_INTERNAL_ERROR),
            Map.entry(LibvirtErrorCode.NO_MEMORY, ErrorNumber.VIR_ERR_NO_MEMORY),
            Map.entry(LibvirtErrorCode.NO_SUPPORT, ErrorNumber.VIR_ERR_NO_SUPPORT),
            Map.entry(LibvirtErrorCode.SYSTEM_ERROR, ErrorNumber.VIR_ERR_SYSTEM_ERROR),
            Map.entry(LibvirtErrorCode.RPC, ErrorNumber.VIR_ERR_RPC),
            Map.entry(LibvirtErrorCode.NO_DOMAIN, ErrorNumber.VIR_ERR_NO_DOMAIN),
            Map.entry(LibvirtErrorCode.INVALID_ARGUMENT, ErrorNumber.VIR_ERR_INVALID_ARG),
            Map.entry(LibvirtErrorCode.XML_ERROR, ErrorNumber.VIR_ERR_XML_ERROR),
            Map.entry(LibvirtErrorCode.XML_DETAIL, ErrorNumber.VIR_ERR_XML_DETAIL),
            Map.entry(LibvirtErrorCode.OPERATION_FAILED, ErrorNumber.VIR_ERR_OPERATION_FAILED),
            Map.entry(LibvirtErrorCode.OPERATION_INVALID, ErrorNumber.VIR_ERR_OPERATION_INVALID),
            Map.entry(LibvirtErrorCode.NO_STORAGE_POOL, ErrorNumber.VIR_ERR_NO_STORAGE_POOL),
            Map.entry(LibvirtErrorCode.NO_STORAGE_VOLUME, ErrorNumber.VIR_ERR_NO_STORAGE_VOL),
            Map.entry(LibvirtErrorCode.STORAGE_VOLUME_EXISTS, ErrorNumber.VIR_ERR_STORAGE_VOL_EXIST),
            Map.entry(LibvirtErrorCode.NO_DOMAIN_METADATA, ErrorNumber.VIR_ERR_NO_DOMAIN_METADATA),
            Map.entry(LibvirtErrorCode.OPERATION_TIMEOUT, ErrorNumber.VIR_ERR_OPERATION_TIMEOUT),
            Map.entry(LibvirtErrorCode.AUTH_FAILED, ErrorNumber.VIR_ERR_AUTH_FAILED),
            Map.entry(LibvirtErrorCode.ACCESS_DENIED, ErrorNumber.VIR_ERR_ACCESS_DENIED),
            Map.entry(LibvirtErrorCode.NO_CONNECT, ErrorNumber.VIR_ERR_NO_CONNECT),
            Map.entry(LibvirtErrorCode.AGENT_UNRESPONSIVE, ErrorNumber.VIR_ERR_AGENT_UNRESPONSIVE),
            Map.entry(LibvirtErrorCode.OPERATION_ABORTED, ErrorNumber.VIR_ERR_OPERATION_ABORTED)));

    @Test
    void everyCodeHasLibvirtsNumber() {
        assertThat(LIBVIRT_NAMES).hasSize(LibvirtErrorCode.values().length - 1);
        LIBVIRT_NAMES.forEach((code, libvirtName) ->
                assertThat(code.number()).as(code.name()).isEqualTo(libvirtName.ordinal()));
    }

    @Test
    void numbersMapBackToTheirCodeAndUnknownOnesToOther() {
        for (LibvirtErrorCode code : LIBVIRT_NAMES.keySet()) {
            assertThat(LibvirtErrorCode.of(code.number())).isEqualTo(code);
        }
        assertThat(LibvirtErrorCode.of(ErrorNumber.VIR_ERR_MULTIPLE_DOMAINS.ordinal())).isEqualTo(LibvirtErrorCode.OTHER);
        assertThat(new LibvirtException(-1, "unknown", null).code()).isEqualTo(LibvirtErrorCode.OTHER);
    }

    @Test
    void onlyConnectionCodesAreTransportFailures() {
        for (LibvirtErrorCode code : LibvirtErrorCode.values()) {
            boolean transport = code == LibvirtErrorCode.SYSTEM_ERROR || code == LibvirtErrorCode.RPC
                    || code == LibvirtErrorCode.NO_CONNECT;
            assertThat(new LibvirtException(code.number(), "m", null).isTransportFailure()).as(code.name())
                    .isEqualTo(transport);
        }
    }

    @Test
    void refusalsOfTheConfigurationArePermanent() {
        for (LibvirtErrorCode code : new LibvirtErrorCode[] {LibvirtErrorCode.XML_ERROR, LibvirtErrorCode.XML_DETAIL,
                LibvirtErrorCode.ACCESS_DENIED, LibvirtErrorCode.AUTH_FAILED}) {
            assertThat(LibvirtErrors.kindOf(new LibvirtException(code, "m"))).as(code.name())
                    .isEqualTo(ErrorKind.PERMANENT);
        }
        assertThat(LibvirtErrors.kindOf(new LibvirtException(LibvirtErrorCode.RPC, "m"))).isEqualTo(ErrorKind.TRANSIENT);
    }
}

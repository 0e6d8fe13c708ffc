package dev.egressproxies.kvm.common.libvirt;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.ErrorKind;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.libvirt.Error.ErrorDomain;
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
            Map.entry(LibvirtErrorCode.AUTH_UNAVAILABLE, ErrorNumber.VIR_ERR_AUTH_UNAVAILABLE),
            Map.entry(LibvirtErrorCode.NO_CONNECT, ErrorNumber.VIR_ERR_NO_CONNECT),
            Map.entry(LibvirtErrorCode.AGENT_UNRESPONSIVE, ErrorNumber.VIR_ERR_AGENT_UNRESPONSIVE),
            Map.entry(LibvirtErrorCode.OPERATION_ABORTED, ErrorNumber.VIR_ERR_OPERATION_ABORTED),
            Map.entry(LibvirtErrorCode.NO_NETWORK, ErrorNumber.VIR_ERR_NO_NETWORK),
            Map.entry(LibvirtErrorCode.NO_INTERFACE, ErrorNumber.VIR_ERR_NO_INTERFACE),
            Map.entry(LibvirtErrorCode.CONFIG_UNSUPPORTED, ErrorNumber.VIR_ERR_CONFIG_UNSUPPORTED),
            Map.entry(LibvirtErrorCode.OPERATION_UNSUPPORTED, ErrorNumber.VIR_ERR_OPERATION_UNSUPPORTED)));
    private static final Map<LibvirtErrorSource, ErrorDomain> LIBVIRT_SOURCES = new EnumMap<>(Map.of(
            LibvirtErrorSource.NONE, ErrorDomain.VIR_FROM_NONE,
            LibvirtErrorSource.RPC, ErrorDomain.VIR_FROM_RPC,
            LibvirtErrorSource.QEMU, ErrorDomain.VIR_FROM_QEMU,
            LibvirtErrorSource.REMOTE, ErrorDomain.VIR_FROM_REMOTE,
            LibvirtErrorSource.STORAGE, ErrorDomain.VIR_FROM_STORAGE,
            LibvirtErrorSource.DOMAIN, ErrorDomain.VIR_FROM_DOMAIN,
            LibvirtErrorSource.CPU, ErrorDomain.VIR_FROM_CPU,
            LibvirtErrorSource.CGROUP, ErrorDomain.VIR_FROM_CGROUP,
            LibvirtErrorSource.DBUS, ErrorDomain.VIR_FROM_DBUS,
            LibvirtErrorSource.POLKIT, ErrorDomain.VIR_FROM_POLKIT));

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
    void everySourceHasLibvirtsNumber() {
        assertThat(LIBVIRT_SOURCES).hasSize(LibvirtErrorSource.values().length - 2);
        LIBVIRT_SOURCES.forEach((source, libvirtName) -> {
            assertThat(source.number()).as(source.name()).isEqualTo(libvirtName.ordinal());
            assertThat(LibvirtErrorSource.of(libvirtName.ordinal())).isEqualTo(source);
        });
        assertThat(LibvirtErrorSource.of(-1)).isEqualTo(LibvirtErrorSource.UNKNOWN);
        assertThat(LibvirtErrorSource.of(ErrorDomain.VIR_FROM_NODEDEV.ordinal())).isEqualTo(LibvirtErrorSource.OTHER);
    }

    @Test
    void onlyConnectionCodesWithoutSourceAreTransportFailures() {
        for (LibvirtErrorCode code : LibvirtErrorCode.values()) {
            boolean transport = code == LibvirtErrorCode.SYSTEM_ERROR || code == LibvirtErrorCode.RPC
                    || code == LibvirtErrorCode.NO_CONNECT;
            assertThat(new LibvirtException(code.number(), "m", null).isTransportFailure()).as(code.name())
                    .isEqualTo(transport);
        }
    }

    @Test
    void osCallAndInternalErrorsAreTransportFailuresOnlyOnTheClientsSideOfTheLink() {
        for (LibvirtErrorSource clientSide : new LibvirtErrorSource[] {LibvirtErrorSource.RPC,
                LibvirtErrorSource.REMOTE}) {
            assertThat(error(LibvirtErrorCode.SYSTEM_ERROR, clientSide, 5).isTransportFailure()).isTrue();
            assertThat(error(LibvirtErrorCode.INTERNAL_ERROR, clientSide, -1).isTransportFailure()).isTrue();
        }
        // What this libvirtd answers for a missing bridge and a missing loader: the link is fine.
        assertThat(error(LibvirtErrorCode.SYSTEM_ERROR, LibvirtErrorSource.NONE, 19).isTransportFailure()).isFalse();
        assertThat(error(LibvirtErrorCode.SYSTEM_ERROR, LibvirtErrorSource.CGROUP, 2).isTransportFailure()).isFalse();
        assertThat(error(LibvirtErrorCode.INTERNAL_ERROR, LibvirtErrorSource.QEMU, -1).isTransportFailure()).isFalse();
        assertThat(error(LibvirtErrorCode.RPC, LibvirtErrorSource.QEMU, -1).isTransportFailure()).isTrue();
    }

    @Test
    void osCallErrorsOfTheDaemonAreClassifiedByTheirErrorNumber() {
        // ENODEV (missing bridge), ENOENT (missing file), EACCES, EPERM: the configuration must change.
        for (int errno : new int[] {19, 2, 13, 1}) {
            assertThat(error(LibvirtErrorCode.SYSTEM_ERROR, LibvirtErrorSource.QEMU, errno).kind())
                    .as("errno %d", errno).isEqualTo(ErrorKind.PERMANENT);
        }
        assertThat(error(LibvirtErrorCode.SYSTEM_ERROR, LibvirtErrorSource.STORAGE, 28).kind())
                .as("ENOSPC").isEqualTo(ErrorKind.QUOTA_EXCEEDED);
        for (int errno : new int[] {11, 16, 4, -1}) {
            assertThat(error(LibvirtErrorCode.SYSTEM_ERROR, LibvirtErrorSource.QEMU, errno).kind())
                    .as("errno %d", errno).isEqualTo(ErrorKind.TRANSIENT);
        }
        // A broken socket reports ENOENT-like numbers too; it stays a link failure, worth a retry.
        assertThat(error(LibvirtErrorCode.SYSTEM_ERROR, LibvirtErrorSource.RPC, 2).kind())
                .isEqualTo(ErrorKind.TRANSIENT);
    }

    @Test
    void definitionsTheHypervisorCannotRunArePermanent() {
        for (LibvirtErrorCode code : new LibvirtErrorCode[] {LibvirtErrorCode.CONFIG_UNSUPPORTED,
                LibvirtErrorCode.OPERATION_UNSUPPORTED, LibvirtErrorCode.NO_NETWORK, LibvirtErrorCode.NO_INTERFACE}) {
            assertThat(error(code, LibvirtErrorSource.QEMU, -1).kind()).as(code.name())
                    .isEqualTo(ErrorKind.PERMANENT);
        }
        assertThat(error(LibvirtErrorCode.INTERNAL_ERROR, LibvirtErrorSource.CPU, -1).kind())
                .as("unknown CPU model").isEqualTo(ErrorKind.PERMANENT);
        assertThat(error(LibvirtErrorCode.INTERNAL_ERROR, LibvirtErrorSource.QEMU, -1).kind())
                .as("QEMU exited").isEqualTo(ErrorKind.TRANSIENT);
    }

    @Test
    void aStepKeepsCodeSourceAndErrorNumber() {
        LibvirtException during = error(LibvirtErrorCode.SYSTEM_ERROR, LibvirtErrorSource.NONE, 19)
                .during("starting domain d");

        assertThat(during.getMessage()).isEqualTo("starting domain d: m");
        assertThat(during.code()).isEqualTo(LibvirtErrorCode.SYSTEM_ERROR);
        assertThat(during.source()).isEqualTo(LibvirtErrorSource.NONE);
        assertThat(during.systemErrorNumber()).isEqualTo(19);
    }

    private static LibvirtException error(LibvirtErrorCode code, LibvirtErrorSource source, int errno) {
        return new LibvirtException(code.number(), source.number(), errno, "m", null);
    }

    @Test
    void refusalsOfTheConfigurationArePermanent() {
        for (LibvirtErrorCode code : new LibvirtErrorCode[] {LibvirtErrorCode.XML_ERROR, LibvirtErrorCode.XML_DETAIL,
                LibvirtErrorCode.ACCESS_DENIED, LibvirtErrorCode.AUTH_FAILED, LibvirtErrorCode.AUTH_UNAVAILABLE}) {
            assertThat(new LibvirtException(code, "m").kind()).as(code.name())
                    .isEqualTo(ErrorKind.PERMANENT);
        }
        assertThat(new LibvirtException(LibvirtErrorCode.RPC, "m").kind()).isEqualTo(ErrorKind.TRANSIENT);
    }
}

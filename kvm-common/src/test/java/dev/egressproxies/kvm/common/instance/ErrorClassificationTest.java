package dev.egressproxies.kvm.common.instance;

import static dev.egressproxies.kvm.common.testing.Requests.catchProviderException;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrorCode;
import dev.egressproxies.kvm.common.libvirt.LibvirtException;
import dev.egressproxies.kvm.common.testing.FakeLibvirtHost;
import dev.egressproxies.kvm.common.testing.Requests;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * How failures below the provider become the contract's error kinds, each carrying the operation,
 * the entry and the instance ID, with a detail that says what to do.
 */
class ErrorClassificationTest {
    private final EngineFixture fixture = EngineFixture.oneHost();

    @AfterEach
    void close() {
        Thread.interrupted();
        fixture.close();
    }

    static Stream<Arguments> libvirtCodes() {
        return Stream.of(
                Arguments.of(LibvirtErrorCode.XML_ERROR, ErrorKind.PERMANENT, "retrying cannot help"),
                Arguments.of(LibvirtErrorCode.INVALID_ARGUMENT, ErrorKind.PERMANENT, "retrying cannot help"),
                Arguments.of(LibvirtErrorCode.NO_SUPPORT, ErrorKind.PERMANENT, "retrying cannot help"),
                Arguments.of(LibvirtErrorCode.AUTH_FAILED, ErrorKind.PERMANENT, "retrying cannot help"),
                Arguments.of(LibvirtErrorCode.NO_MEMORY, ErrorKind.QUOTA_EXCEEDED, "free memory or disk"),
                Arguments.of(LibvirtErrorCode.INTERNAL_ERROR, ErrorKind.TRANSIENT, "retry"),
                Arguments.of(LibvirtErrorCode.OPERATION_FAILED, ErrorKind.TRANSIENT, "retry"),
                Arguments.of(LibvirtErrorCode.OPERATION_TIMEOUT, ErrorKind.TRANSIENT, "retry"),
                Arguments.of(LibvirtErrorCode.RPC, ErrorKind.TRANSIENT, "retry"),
                Arguments.of(LibvirtErrorCode.SYSTEM_ERROR, ErrorKind.TRANSIENT, "retry"),
                // A domain that vanishes in the middle of a create is a race, not "not found".
                Arguments.of(LibvirtErrorCode.NO_DOMAIN, ErrorKind.TRANSIENT, "retry"));
    }

    @ParameterizedTest(name = "{0} during create is {1}")
    @MethodSource("libvirtCodes")
    void libvirtErrorsDuringCreateAreClassifiedByCode(LibvirtErrorCode code, ErrorKind kind, String advice) {
        fixture.cacheBaseImage();
        fixture.host().failNext("defineDomain", FakeLibvirtHost.error(code, "libvirt says no"));

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.kind()).isEqualTo(kind);
        assertThat(error.operation()).isEqualTo(Operation.CREATE);
        assertThat(error.entry()).isEqualTo(EngineFixture.ENTRY);
        assertThat(error.instanceId()).isEqualTo("host-1/proxy-1");
        // A refusal for good names the host's settings instead of only passing libvirt's words on.
        String said = kind == ErrorKind.PERMANENT ? "libvirt on host 'host-1' refused the domain (libvirt: "
                : "libvirt on host 'host-1' failed: ";
        assertThat(error.detail()).contains(said + "defining domain proxy-1: libvirt says no", code.name(), advice);
        assertThat(error.getCause()).isInstanceOf(LibvirtException.class);
        assertThat(error.getMessage()).startsWith("create on provider entry 'kvm-test' for instance 'host-1/proxy-1': ");
    }

    @ParameterizedTest(name = "a host that is {0} fails the call {0}")
    @CsvSource({"TRANSIENT", "PERMANENT"})
    void dialFailuresKeepTheDialersKind(ErrorKind kind) {
        fixture.connections.breakHost("host-1", kind);

        ProviderException error = catchProviderException(() -> fixture.engine.get("host-1/proxy-1",
                Requests.deadline()));

        assertThat(error.kind()).isEqualTo(kind);
        assertThat(error.operation()).isEqualTo(Operation.GET);
        assertThat(error.instanceId()).isEqualTo("host-1/proxy-1");
    }

    @Test
    void anInterruptedCallerGetsTransientWithItsFlagSetAgain() {
        Thread.currentThread().interrupt();

        ProviderException error = catchProviderException(() -> fixture.engine.get("host-1/proxy-1",
                Requests.deadline()));

        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(error.instanceId()).isEqualTo("host-1/proxy-1");
        assertThat(Thread.interrupted()).as("interrupt flag set again").isTrue();
    }

    @Test
    void aMisconfiguredConnectionSaysWhichSettingsToFix() {
        fixture.connections.breakHost("host-1", ErrorKind.PERMANENT);

        ProviderException error = catchProviderException(() -> fixture.engine.delete("host-1/proxy-1",
                Requests.deadline()));

        assertThat(error.detail()).contains("cannot work as configured", "sshKeyFile, knownHostsFile");
    }

    @Test
    void aHostThatHangsPastTheDeadlineSaysSo() {
        fixture.host().after("listAllDomains", () -> sleep(Duration.ofSeconds(3)));

        ProviderException error = catchProviderException(() -> fixture.engine.listManaged(
                Deadline.after(Duration.ofMillis(300))));

        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(error.detail()).contains("deadline exceeded while waiting for host 'host-1'");
        assertThat(error.instanceId()).isEmpty();
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void anUnexpectedExceptionFromTheAdapterIsTransient() {
        fixture.host().failNext("lookupDomain", new IllegalStateException("stream closed"));

        ProviderException error = catchProviderException(() -> fixture.engine.get("host-1/proxy-1",
                Requests.deadline()));

        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(error.detail()).contains("unexpected failure while talking to host 'host-1'", "stream closed");
    }

    @Test
    void aValueXmlCannotCarryIsPermanent() {
        fixture.host().failNext("defineDomain", new IllegalArgumentException("'a?b' contains a character XML cannot carry"));

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.detail()).contains("cannot be given to libvirt", "retrying cannot help");
    }
}

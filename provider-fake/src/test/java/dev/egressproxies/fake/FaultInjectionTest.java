package dev.egressproxies.fake;

import static dev.egressproxies.fake.TestProviders.START;
import static dev.egressproxies.fake.TestProviders.deadline;
import static dev.egressproxies.fake.TestProviders.providerError;
import static dev.egressproxies.fake.TestProviders.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class FaultInjectionTest {
    private final FakeProvider provider = TestProviders.inMemory();
    private final FaultInjector faults = provider.faults();

    @ParameterizedTest
    @EnumSource(ErrorKind.class)
    void failNextFailsOneCreateWithTheKindAndCreatesNothing(ErrorKind kind) {
        faults.failNext(Operation.CREATE, kind);

        ProviderException error = providerError(() -> provider.create(request("proxy-1"), deadline()), kind,
                Operation.CREATE, "zone-a/proxy-1");

        assertThat(error.detail()).contains("injected fault", "FaultInjector.clear()", "faults.create");
        assertThat(provider.listManaged(deadline())).isEmpty();
        assertThat(provider.create(request("proxy-1"), deadline())).isEqualTo("zone-a/proxy-1");
    }

    @Test
    void failAlwaysFailsEveryCallUntilCleared() {
        String id = provider.create(request("proxy-1"), deadline());
        faults.failAlways(Operation.GET, ErrorKind.TRANSIENT);

        for (int attempt = 0; attempt < 3; attempt++) {
            providerError(() -> provider.get(id, deadline()), ErrorKind.TRANSIENT, Operation.GET, id);
        }
        faults.clear();

        assertThat(provider.get(id, deadline()).id()).isEqualTo(id);
    }

    @Test
    void failAfterLetsTheFirstCallsSucceedThenFailsEveryLaterOne() {
        faults.failAfter(Operation.DELETE, 2, ErrorKind.TRANSIENT);

        provider.delete("zone-a/proxy-1", deadline());
        provider.delete("zone-a/proxy-2", deadline());
        providerError(() -> provider.delete("zone-a/proxy-3", deadline()), ErrorKind.TRANSIENT, Operation.DELETE,
                "zone-a/proxy-3");
        providerError(() -> provider.delete("zone-a/proxy-4", deadline()), ErrorKind.TRANSIENT, Operation.DELETE,
                "zone-a/proxy-4");
    }

    @Test
    void injectedListManagedErrorCarriesNoInstance() {
        faults.failNext(Operation.LIST_MANAGED, ErrorKind.TRANSIENT);

        providerError(() -> provider.listManaged(deadline()), ErrorKind.TRANSIENT, Operation.LIST_MANAGED, "");
    }

    @Test
    void faultsOfOneOperationLeaveTheOthersAlone() {
        faults.failAlways(Operation.GET, ErrorKind.TRANSIENT);
        faults.failAlways(Operation.DELETE, ErrorKind.TRANSIENT);

        assertThatCode(() -> provider.create(request("proxy-1"), deadline())).doesNotThrowAnyException();
        faults.clear(Operation.GET);

        assertThatCode(() -> provider.get("zone-a/proxy-1", deadline())).doesNotThrowAnyException();
        assertThatThrownBy(() -> provider.delete("zone-a/proxy-1", deadline())).isInstanceOf(ProviderException.class);
    }

    @Test
    void aLaterErrorPlanReplacesTheEarlierOne() {
        faults.failAlways(Operation.GET, ErrorKind.TRANSIENT);
        faults.failNext(Operation.GET, ErrorKind.NOT_FOUND);

        providerError(() -> provider.get("zone-a/proxy-1", deadline()), ErrorKind.NOT_FOUND, Operation.GET,
                "zone-a/proxy-1");
        providerError(() -> provider.get("zone-a/proxy-1", deadline()), ErrorKind.NOT_FOUND, Operation.GET,
                "zone-a/proxy-1");
    }

    @Test
    void malformedIdIsReportedBeforeAnyInjectedFault() {
        faults.failAlways(Operation.GET, ErrorKind.TRANSIENT);

        providerError(() -> provider.get("not-an-id", deadline()), ErrorKind.PERMANENT, Operation.GET, "not-an-id");
    }

    @Test
    void latencyDelaysTheCall() {
        faults.latency(Operation.LIST_MANAGED, Duration.ofMillis(200));

        long start = System.nanoTime();
        provider.listManaged(deadline());

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
    }

    @Test
    void zeroLatencyRemovesTheLatency() {
        faults.latency(Operation.LIST_MANAGED, Duration.ofSeconds(30));
        faults.latency(Operation.LIST_MANAGED, Duration.ZERO);

        assertThatCode(() -> provider.listManaged(TestProviders.deadline())).doesNotThrowAnyException();
    }

    @Test
    void faultsCannotBeInjectedIntoOtherOperations() {
        assertThatThrownBy(() -> faults.failNext(Operation.PREFLIGHT, ErrorKind.TRANSIENT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("create, get, delete, listManaged");
    }

    @Test
    void negativeLatencyAndSuccessCountAreRejected() {
        assertThatThrownBy(() -> faults.latency(Operation.GET, Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> faults.failAfter(Operation.GET, -1, ErrorKind.TRANSIENT))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void configuredFaultsAreInjectedFromTheFirstCall() {
        FakeConfig config = FakeConfig.defaults()
                .withFault(Operation.CREATE, new FaultConfig(ErrorKind.QUOTA_EXCEEDED, null, false, 1))
                .withFault(Operation.GET, FaultConfig.failing(ErrorKind.TRANSIENT));
        FakeProvider configured = TestProviders.build(config, new ManualClock(START), Path.of("unused"));

        String id = configured.create(request("proxy-1"), deadline());
        providerError(() -> configured.create(request("proxy-2"), deadline()), ErrorKind.QUOTA_EXCEEDED,
                Operation.CREATE, "zone-a/proxy-2");
        providerError(() -> configured.get(id, deadline()), ErrorKind.TRANSIENT, Operation.GET, id);
    }

    @Test
    void configuredFaultsCanBeClearedByTests() {
        FakeConfig config = FakeConfig.defaults().withFault(Operation.LIST_MANAGED, FaultConfig.hanging());
        FakeProvider configured = TestProviders.build(config, new ManualClock(START), Path.of("unused"));

        configured.faults().clear();

        assertThat(configured.listManaged(deadline())).isEmpty();
    }
}

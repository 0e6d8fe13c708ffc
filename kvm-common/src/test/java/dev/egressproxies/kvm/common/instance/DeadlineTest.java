package dev.egressproxies.kvm.common.instance;

import static dev.egressproxies.kvm.common.instance.EngineFixture.POOL;
import static dev.egressproxies.kvm.common.instance.EngineFixture.overlay;
import static dev.egressproxies.kvm.common.testing.Requests.catchProviderException;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.DomainState;
import dev.egressproxies.kvm.common.testing.FakeLibvirtHost;
import dev.egressproxies.kvm.common.testing.Requests;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The deadline between steps: a call whose deadline passes stops at the next step with the
 * contract's TRANSIENT error, and the next call repairs what it left.
 */
class DeadlineTest {
    private final EngineFixture fixture = EngineFixture.oneHost();
    private final FakeLibvirtHost host = fixture.host();

    @AfterEach
    void close() {
        Thread.interrupted();
        fixture.close();
    }

    @Test
    void anExpiredDeadlineTouchesNothing() {
        ProviderException error = catchProviderException(() -> fixture.engine.create(EngineFixture.request("proxy-1"),
                Deadline.after(Duration.ZERO)));

        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(error.instanceId()).isEqualTo("host-1/proxy-1");
        assertThat(host.totalCalls()).isZero();
    }

    @Test
    void aDeadlineThatPassesAfterTheOverlayStopsCreateBeforeTheSeedAndTheNextCreateFinishes() {
        fixture.cacheBaseImage();
        host.after("createVolume", () -> sleep(Duration.ofMillis(400)));

        ProviderException error = catchProviderException(() -> fixture.engine.create(EngineFixture.request("proxy-1"),
                Deadline.after(Duration.ofMillis(200))));

        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(error.detail()).contains("deadline exceeded");
        assertThat(host.volumeNames(POOL)).containsExactlyInAnyOrder(EngineFixture.BASE_VOLUME,
                overlay("proxy-1"));
        assertThat(host.domainNames()).isEmpty();

        fixture.create("proxy-1");

        assertThat(host.domain("proxy-1").state).isEqualTo(DomainState.RUNNING);
    }

    @Test
    void aDeadlineThatPassesAfterTheDefineStopsCreateBeforeTheStartAndTheNextCreateStarts() {
        fixture.cacheBaseImage();
        host.after("defineDomain", () -> sleep(Duration.ofMillis(400)));

        catchProviderException(() -> fixture.engine.create(EngineFixture.request("proxy-1"),
                Deadline.after(Duration.ofMillis(200))));

        assertThat(host.domain("proxy-1").state).isEqualTo(DomainState.SHUTOFF);
        fixture.create("proxy-1");
        assertThat(host.domain("proxy-1").state).isEqualTo(DomainState.RUNNING);
    }

    @Test
    void aDeadlineThatPassesAfterTheDestroyStopsDeleteAndTheNextDeleteFinishes() {
        fixture.cacheBaseImage();
        String id = fixture.create("proxy-1");
        host.after("undefineDomain", () -> sleep(Duration.ofMillis(400)));

        catchProviderException(() -> fixture.engine.delete(id, Deadline.after(Duration.ofMillis(200))));

        assertThat(host.volumeNames(POOL)).contains(overlay("proxy-1"));
        fixture.engine.delete(id, Requests.deadline());
        assertThat(host.volumeNames(POOL)).containsExactlyInAnyOrder(EngineFixture.BASE_VOLUME);
    }

    @Test
    void aDeadlineThatPassesWhileListingStopsBetweenDomains() {
        fixture.cacheBaseImage();
        fixture.create("proxy-1");
        fixture.create("proxy-2");
        host.after("listAllDomains", () -> sleep(Duration.ofMillis(400)));
        host.resetCalls();

        ProviderException error = catchProviderException(() -> fixture.engine.listManaged(
                Deadline.after(Duration.ofMillis(200))));

        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(host.callLog()).containsExactly("listAllDomains(active)");
    }

    @Test
    void anInterruptedCallIsTransientAndKeepsTheFlag() {
        Thread.currentThread().interrupt();

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(error.detail()).contains("interrupted");
        assertThat(Thread.interrupted()).isTrue();
        assertThat(host.totalCalls()).isZero();
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}

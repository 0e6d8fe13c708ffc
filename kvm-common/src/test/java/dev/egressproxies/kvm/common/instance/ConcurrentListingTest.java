package dev.egressproxies.kvm.common.instance;

import static dev.egressproxies.kvm.common.testing.Requests.catchProviderException;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.InstanceState;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrorCode;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.DomainState;
import dev.egressproxies.kvm.common.testing.FakeLibvirtHost;
import dev.egressproxies.kvm.common.testing.PlatformMetadata;
import dev.egressproxies.kvm.common.testing.Requests;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * listManaged reads a host's domains on {@link HostReads#READERS} threads at once,
 * lists shut-off domains without reading their state, and leaves no thread behind, whether the
 * call succeeds, fails, passes its deadline or is interrupted.
 */
class ConcurrentListingTest {
    private static final int DOMAINS = 40;

    private final EngineFixture fixture = EngineFixture.oneHost();
    private final FakeLibvirtHost host = fixture.hosts.get(0);

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void fourDomainsAreReadAtOnceAndStoppedOnesNeedNoStateRead() {
        putManaged(DOMAINS, DomainState.SHUTOFF);
        CyclicBarrier fourInFlight = new CyclicBarrier(HostReads.READERS);
        for (int reader = 0; reader < HostReads.READERS; reader++) {
            // Each hook holds its reader until four metadata reads are in flight; fewer time out.
            host.after("domainMetadata", () -> await(fourInFlight));
        }
        host.resetCalls();

        List<Instance> listed = fixture.engine.listManaged(Requests.deadline());

        assertThat(fourInFlight.isBroken()).isFalse();
        assertThat(listed).hasSize(DOMAINS).allSatisfy(instance -> {
            assertThat(instance.state()).isEqualTo(InstanceState.STOPPED);
            assertThat(instance.ip()).isEmpty();
            assertThat(instance.uid()).isEqualTo(instance.name());
        });
        assertThat(listed).extracting(Instance::id).isSorted();
        assertThat(host.callCounts()).containsOnlyKeys("listAllDomains(active)", "listAllDomains(inactive)",
                "domainMetadata").containsEntry("domainMetadata", DOMAINS);
        assertNoReaderThreadLeft();
    }

    @Test
    void activeDomainsStillHaveTheirStateRead() {
        putManaged(3, DomainState.SHUTOFF);
        host.putDomain("run-0", DomainState.PAUSED, metadata("run-0"));
        host.resetCalls();

        List<Instance> listed = fixture.engine.listManaged(Requests.deadline());

        assertThat(listed).extracting(Instance::name).containsExactly("bench-0000", "bench-0001", "bench-0002", "run-0");
        assertThat(listed).extracting(Instance::state).containsOnly(InstanceState.STOPPED);
        assertThat(host.callCounts()).containsEntry("domainState", 1).containsEntry("domainMetadata", 4);
    }

    @Test
    void aDomainThatStopsBetweenTheListingsIsListedOnceWithItsStateRead() {
        host.putDomain("moving", DomainState.RUNNING, metadata("moving"));
        host.after("listAllDomains(active)", () -> host.domain("moving").state = DomainState.SHUTOFF);
        host.resetCalls();

        List<Instance> listed = fixture.engine.listManaged(Requests.deadline());

        assertThat(listed).extracting(Instance::name, Instance::state).containsExactly(
                org.assertj.core.groups.Tuple.tuple("moving", InstanceState.STOPPED));
        assertThat(host.callCounts()).containsEntry("domainState", 1).containsEntry("domainMetadata", 1);
    }

    @Test
    void aDomainThatCannotBeReadIsSkippedAndTheOthersListed() {
        putManaged(DOMAINS, DomainState.SHUTOFF);
        host.domain("bench-0017").metadataFailure = FakeLibvirtHost.error(LibvirtErrorCode.NO_DOMAIN, "gone");
        host.domain("bench-0023").metadata = "<ep:instance xmlns:ep='https://egressproxies.dev/xmlns/instance/1'/>";

        List<Instance> listed = fixture.engine.listManaged(Requests.deadline());

        assertThat(listed).hasSize(DOMAINS - 2).extracting(Instance::name).doesNotContain("bench-0017", "bench-0023");
        assertNoReaderThreadLeft();
    }

    @Test
    void aTransportFailureInOneReaderFailsTheWholeCallAndStopsTheOthers() {
        putManaged(200, DomainState.SHUTOFF);
        host.domain("bench-0005").metadataFailure = FakeLibvirtHost.error(LibvirtErrorCode.RPC, "connection reset");
        for (int index = 0; index < 200; index++) {
            host.after("domainMetadata", () -> sleep(Duration.ofMillis(2)));
        }
        host.resetCalls();

        ProviderException error = catchProviderException(() -> fixture.engine.listManaged(Requests.deadline()));

        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(error.detail()).contains("connection reset");
        assertThat(host.callCounts().get("domainMetadata")).isLessThan(200);
        assertNoReaderThreadLeft();
    }

    @Test
    void anyOtherRuntimeExceptionInOneReaderFailsTheWholeCall() {
        putManaged(DOMAINS, DomainState.SHUTOFF);
        host.domain("bench-0030").metadataFailure = new IllegalStateException("native crash");

        ProviderException error = catchProviderException(() -> fixture.engine.listManaged(Requests.deadline()));

        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertNoReaderThreadLeft();
    }

    @Test
    void aDeadlineThatPassesWhileReadingAbortsTheRestPromptly() {
        putManaged(200, DomainState.SHUTOFF);
        for (int index = 0; index < 200; index++) {
            host.after("domainMetadata", () -> sleep(Duration.ofMillis(20)));
        }
        host.resetCalls();
        long started = System.nanoTime();

        ProviderException error = catchProviderException(() -> fixture.engine.listManaged(
                Deadline.after(Duration.ofMillis(200))));

        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(millis).as("ms until the call failed").isLessThan(1000);
        assertNoReaderThreadLeft();
        // 200 reads of 20 ms on four threads take a second; the deadline stopped them well before.
        assertThat(host.callCounts().get("domainMetadata")).isLessThan(100);
    }

    @Test
    void anInterruptedCallerStopsTheReadersAndKeepsItsFlag() throws Exception {
        putManaged(200, DomainState.SHUTOFF);
        CyclicBarrier started = new CyclicBarrier(2);
        AtomicInteger hooks = new AtomicInteger();
        for (int index = 0; index < 200; index++) {
            host.after("domainMetadata", () -> {
                if (hooks.incrementAndGet() == 1) {
                    await(started);
                }
                sleep(Duration.ofMillis(20));
            });
        }
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicReference<Boolean> flagKept = new AtomicReference<>();
        Thread caller = new Thread(() -> {
            try {
                fixture.engine.listManaged(Requests.deadline());
            } catch (Throwable thrown) {
                failure.set(thrown);
            }
            flagKept.set(Thread.currentThread().isInterrupted());
        });
        caller.start();
        started.await(5, TimeUnit.SECONDS);
        caller.interrupt();
        caller.join(2000);

        assertThat(caller.isAlive()).isFalse();
        assertThat(failure.get()).isInstanceOf(ProviderException.class);
        assertThat(flagKept.get()).isTrue();
        assertNoReaderThreadLeft();
    }

    private void putManaged(int count, DomainState state) {
        for (int index = 0; index < count; index++) {
            String name = String.format("bench-%04d", index);
            host.putDomain(name, state, metadata(name));
        }
    }

    private static String metadata(String uid) {
        return PlatformMetadata.of(EngineFixture.ENTRY, uid);
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (BrokenBarrierException | TimeoutException e) {
            throw new AssertionError("fewer than " + barrier.getParties() + " reads were in flight at once", e);
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Reader threads end soon after the call returns (they are told to stop, not waited for). */
    private static void assertNoReaderThreadLeft() {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (readerThreads() > 0 && System.nanoTime() < until) {
            sleep(Duration.ofMillis(10));
        }
        assertThat(readerThreads()).as("reader threads still alive").isZero();
    }

    private static long readerThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().startsWith(HostReads.THREAD_PREFIX) && thread.isAlive())
                .count();
    }
}

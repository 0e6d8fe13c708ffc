package dev.egressproxies.kvm.common.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.libvirt.HostInfo;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrorCode;
import dev.egressproxies.kvm.common.libvirt.LibvirtException;
import dev.egressproxies.kvm.common.libvirt.UploadSourceException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class CachingHostConnectionsTest {
    private static final HostEndpoint ALPHA = endpoint("alpha");
    private static final HostEndpoint BETA = endpoint("beta");
    private static final Deadline TEN_SECONDS = Deadline.after(Duration.ofSeconds(10));
    /** How late after its deadline a caller may get its answer: the contract's "promptly". */
    private static final long PROMPT_MILLIS = 200;

    private final FakeDialer dialer = new FakeDialer();
    private final CachingHostConnections connections = new CachingHostConnections(dialer, Duration.ofSeconds(20));
    private final ExecutorService callers = Executors.newCachedThreadPool();

    @AfterEach
    void releaseEverything() {
        dialer.releaseDials("alpha");
        dialer.releaseDials("beta");
        callers.shutdownNow();
        connections.close();
    }

    private static HostEndpoint endpoint(String name) {
        return new HostEndpoint(name, name + ".example.invalid", 22, "root", "/var/run/libvirt/libvirt-sock");
    }

    private HostInfo hostInfo(HostEndpoint host, Deadline deadline) {
        return connections.call(host, deadline, libvirt -> libvirt.hostInfo());
    }

    private static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    @Nested
    class Dialling {
        @Test
        void dialsLazilyAndReusesTheLink() {
            assertThat(dialer.dialCount("alpha")).isZero();

            for (int call = 0; call < 3; call++) {
                assertThat(hostInfo(ALPHA, TEN_SECONDS).hostname()).isEqualTo("alpha");
            }

            assertThat(dialer.dialCount("alpha")).isOne();
        }

        @Test
        void keepsOneLinkPerHost() {
            hostInfo(ALPHA, TEN_SECONDS);
            hostInfo(BETA, TEN_SECONDS);
            hostInfo(ALPHA, TEN_SECONDS);

            assertThat(dialer.dialCount("alpha")).isOne();
            assertThat(dialer.dialCount("beta")).isOne();
        }

        @Test
        void redialsOnceTheLinkIsNoLongerAlive() {
            hostInfo(ALPHA, TEN_SECONDS);
            FakeHostLink lost = dialer.onlyLink("alpha");
            lost.die();

            hostInfo(ALPHA, TEN_SECONDS);

            assertThat(dialer.dialCount("alpha")).isEqualTo(2);
            assertThat(lost.wasAborted()).isTrue();
            assertThat(lost.wasClosed()).isTrue();
        }

        @Test
        void givesEachDialTheConfiguredTimeNotTheCallersDeadline() {
            hostInfo(ALPHA, Deadline.after(Duration.ofSeconds(3)));

            Deadline dialDeadline = dialer.deadlines("alpha").get(0);
            assertThat(dialDeadline.isBounded()).isTrue();
            assertThat(dialDeadline.remaining()).isBetween(Duration.ofSeconds(15), Duration.ofSeconds(20));
        }

        @Test
        void concurrentCallersForOneHostShareOneDial() throws Exception {
            CountDownLatch gate = dialer.holdDials("alpha");
            int callerCount = 8;
            List<Future<HostInfo>> results = new ArrayList<>();
            for (int caller = 0; caller < callerCount; caller++) {
                results.add(callers.submit(() -> hostInfo(ALPHA, TEN_SECONDS)));
            }
            dialer.awaitDialStarted("alpha");
            Thread.sleep(200); // lets every caller reach the wait for the dial

            gate.countDown();

            for (Future<HostInfo> result : results) {
                assertThat(result.get(5, TimeUnit.SECONDS).hostname()).isEqualTo("alpha");
            }
            assertThat(dialer.dialCount("alpha")).isOne();
        }

        @Test
        void aHungDialToOneHostDoesNotHoldUpAnother() throws Exception {
            dialer.holdDials("alpha");
            Future<HostInfo> stuck = callers.submit(() -> hostInfo(ALPHA, TEN_SECONDS));
            dialer.awaitDialStarted("alpha");

            long started = System.nanoTime();
            assertThat(hostInfo(BETA, TEN_SECONDS).hostname()).isEqualTo("beta");

            assertThat(millisSince(started)).isLessThan(1000);
            assertThat(stuck.isDone()).isFalse();
        }

        @Test
        void waitingForAHungDialHonoursTheCallersDeadline() throws Exception {
            CountDownLatch gate = dialer.holdDials("alpha");
            long started = System.nanoTime();

            HostCallException failure = catchThrowableOfType(HostCallException.class,
                    () -> hostInfo(ALPHA, Deadline.after(Duration.ofMillis(300))));

            assertThat(failure.reason()).isEqualTo(HostCallException.Reason.DEADLINE_EXCEEDED);
            assertThat(failure.host()).isEqualTo("alpha");
            assertThat(failure).hasMessageContaining("connecting to host alpha");
            assertThat(millisSince(started)).isBetween(250L, 300 + PROMPT_MILLIS);

            // The dial goes on for whoever comes next; it is not started again.
            gate.countDown();
            assertThat(hostInfo(ALPHA, TEN_SECONDS).hostname()).isEqualTo("alpha");
            assertThat(dialer.dialCount("alpha")).isOne();
        }

        @Test
        void anInterruptWhileWaitingForTheDialEndsTheWait() throws Exception {
            dialer.holdDials("alpha");
            Thread caller = Thread.currentThread();
            callers.submit(() -> {
                dialer.awaitDialStarted("alpha");
                Thread.sleep(100);
                caller.interrupt();
                return null;
            });

            HostCallException failure = catchThrowableOfType(HostCallException.class,
                    () -> hostInfo(ALPHA, TEN_SECONDS));

            assertThat(failure.reason()).isEqualTo(HostCallException.Reason.INTERRUPTED);
            assertThat(Thread.interrupted()).as("the interrupt flag is kept").isTrue();
        }
    }

    @Nested
    class DialFailures {
        @Test
        void unreachableHostFailsAndTheNextCallDialsAgain() {
            dialer.fail("alpha", () -> new HostCallException(HostCallException.Reason.UNREACHABLE, "alpha",
                    "connection refused", null));

            HostCallException failure = catchThrowableOfType(HostCallException.class,
                    () -> hostInfo(ALPHA, TEN_SECONDS));

            assertThat(failure.reason()).isEqualTo(HostCallException.Reason.UNREACHABLE);
            assertThat(failure).hasMessageContaining("connection refused");

            dialer.succeed("alpha");
            assertThat(hostInfo(ALPHA, TEN_SECONDS).hostname()).isEqualTo("alpha");
            assertThat(dialer.dialCount("alpha")).isEqualTo(2);
        }

        @Test
        void misconfigurationIsReportedAsTheDialerSaysIt() {
            dialer.fail("alpha", () -> new HostCallException(HostCallException.Reason.MISCONFIGURED, "alpha",
                    "host key does not match known_hosts", null));

            HostCallException failure = catchThrowableOfType(HostCallException.class,
                    () -> hostInfo(ALPHA, TEN_SECONDS));

            assertThat(failure.reason()).isEqualTo(HostCallException.Reason.MISCONFIGURED);
            assertThat(failure).hasMessageContaining("known_hosts");
        }

        @Test
        void anyOtherDialFailureCountsAsUnreachable() {
            dialer.fail("alpha", () -> new UncheckedIOException(new IOException("no route to host")));

            HostCallException failure = catchThrowableOfType(HostCallException.class,
                    () -> hostInfo(ALPHA, TEN_SECONDS));

            assertThat(failure.reason()).isEqualTo(HostCallException.Reason.UNREACHABLE);
            assertThat(failure).hasMessageContaining("no route to host").hasRootCauseInstanceOf(IOException.class);
        }

        @Test
        void everyWaiterOfAFailedDialGetsItsOwnException() throws Exception {
            CountDownLatch gate = dialer.holdDials("alpha");
            dialer.fail("alpha", () -> new HostCallException(HostCallException.Reason.UNREACHABLE, "alpha", "down", null));
            Future<Throwable> first = callers.submit(() -> catchThrowableOfType(HostCallException.class,
                    () -> hostInfo(ALPHA, TEN_SECONDS)));
            Future<Throwable> second = callers.submit(() -> catchThrowableOfType(HostCallException.class,
                    () -> hostInfo(ALPHA, TEN_SECONDS)));
            dialer.awaitDialStarted("alpha");
            Thread.sleep(100);

            gate.countDown();

            assertThat(first.get(5, TimeUnit.SECONDS)).isNotSameAs(second.get(5, TimeUnit.SECONDS));
            assertThat(dialer.dialCount("alpha")).isOne();
        }
    }

    @Nested
    class Deadlines {
        @Test
        void aCallOnAHungHostReturnsPromptlyAtItsDeadlineAndTheLinkIsCut() {
            hostInfo(ALPHA, TEN_SECONDS);
            FakeHostLink link = dialer.onlyLink("alpha");
            link.hang();
            long started = System.nanoTime();

            HostCallException failure = catchThrowableOfType(HostCallException.class,
                    () -> hostInfo(ALPHA, Deadline.after(Duration.ofMillis(500))));

            assertThat(failure.reason()).isEqualTo(HostCallException.Reason.DEADLINE_EXCEEDED);
            assertThat(millisSince(started)).isBetween(450L, 500 + PROMPT_MILLIS);
            assertThat(link.wasAborted()).isTrue();
            assertThat(link.wasClosed()).isTrue();
        }

        @Test
        void theNextCallAfterADeadlineRedials() {
            hostInfo(ALPHA, TEN_SECONDS);
            dialer.onlyLink("alpha").hang();
            assertThatThrownBy(() -> hostInfo(ALPHA, Deadline.after(Duration.ofMillis(200))))
                    .isInstanceOf(HostCallException.class);

            assertThat(hostInfo(ALPHA, TEN_SECONDS).hostname()).isEqualTo("alpha");

            assertThat(dialer.dialCount("alpha")).isEqualTo(2);
        }

        @Test
        void theAbandonedCallsLateFailureLeavesTheNewLinkAlone() throws Exception {
            hostInfo(ALPHA, TEN_SECONDS);
            FakeHostLink first = dialer.links("alpha").get(0);
            first.hang();
            assertThatThrownBy(() -> hostInfo(ALPHA, Deadline.after(Duration.ofMillis(200))))
                    .isInstanceOf(HostCallException.class);
            hostInfo(ALPHA, TEN_SECONDS);
            Thread.sleep(200); // the aborted work has failed with a transport error by now

            hostInfo(ALPHA, TEN_SECONDS);

            FakeHostLink second = dialer.links("alpha").get(1);
            assertThat(second.wasAborted()).isFalse();
            assertThat(dialer.dialCount("alpha")).isEqualTo(2);
        }

        @Test
        void anInterruptDuringTheCallEndsItPromptlyAndCutsTheLink() throws Exception {
            hostInfo(ALPHA, TEN_SECONDS);
            FakeHostLink link = dialer.onlyLink("alpha");
            link.hang();
            Thread caller = Thread.currentThread();
            long[] interruptedAt = new long[1];
            callers.submit(() -> {
                Thread.sleep(300);
                interruptedAt[0] = System.nanoTime();
                caller.interrupt();
                return null;
            });

            HostCallException failure = catchThrowableOfType(HostCallException.class,
                    () -> hostInfo(ALPHA, TEN_SECONDS));

            assertThat(failure.reason()).isEqualTo(HostCallException.Reason.INTERRUPTED);
            assertThat(millisSince(interruptedAt[0])).isLessThan(PROMPT_MILLIS);
            assertThat(Thread.interrupted()).as("the interrupt flag is kept").isTrue();
            assertThat(link.wasAborted()).isTrue();
        }

        @Test
        void aDeadlineAlreadyPassedFailsWithoutDialling() {
            HostCallException failure = catchThrowableOfType(HostCallException.class,
                    () -> hostInfo(ALPHA, Deadline.after(Duration.ZERO)));

            assertThat(failure.reason()).isEqualTo(HostCallException.Reason.DEADLINE_EXCEEDED);
            assertThat(dialer.dialCount("alpha")).isZero();
        }

        @Test
        void anAlreadyInterruptedThreadFailsWithoutDialling() {
            Thread.currentThread().interrupt();

            HostCallException failure = catchThrowableOfType(HostCallException.class,
                    () -> hostInfo(ALPHA, TEN_SECONDS));

            assertThat(failure.reason()).isEqualTo(HostCallException.Reason.INTERRUPTED);
            assertThat(Thread.interrupted()).isTrue();
            assertThat(dialer.dialCount("alpha")).isZero();
        }
    }

    @Nested
    class FailuresOfTheWork {
        private RuntimeException failureOf(Supplier<? extends Throwable> thrown) {
            return catchThrowableOfType(RuntimeException.class, () -> connections.call(ALPHA, TEN_SECONDS, libvirt -> {
                Throwable failure = thrown.get();
                if (failure instanceof RuntimeException runtime) {
                    throw runtime;
                }
                throw (Error) failure;
            }));
        }

        private void assertLinkKept() {
            hostInfo(ALPHA, TEN_SECONDS);
            assertThat(dialer.dialCount("alpha")).isOne();
            assertThat(dialer.onlyLink("alpha").wasAborted()).isFalse();
        }

        private void assertLinkDropped() {
            FakeHostLink first = dialer.links("alpha").get(0);
            assertThat(first.wasAborted()).isTrue();
            assertThat(first.wasClosed()).isTrue();
            hostInfo(ALPHA, TEN_SECONDS);
            assertThat(dialer.dialCount("alpha")).isEqualTo(2);
        }

        @Test
        void returnsWhatTheWorkReturns() {
            String result = connections.call(ALPHA, TEN_SECONDS, libvirt -> "result");

            assertThat(result).isEqualTo("result");
        }

        @Test
        void aLibvirtErrorIsRethrownAsItIsAndKeepsTheLink() {
            LibvirtException noDomain = new LibvirtException(LibvirtErrorCode.NO_DOMAIN, "no domain 'x'");

            assertThat(failureOf(() -> noDomain)).isSameAs(noDomain);
            assertLinkKept();
        }

        @Test
        void aLibvirtTransportErrorDropsTheLinkAndIsReportedUnreachable() {
            LibvirtException broken = new LibvirtException(LibvirtErrorCode.RPC, "End of file while reading data");

            RuntimeException failure = failureOf(() -> broken);

            assertThat(failure).isInstanceOf(HostCallException.class).hasCause(broken)
                    .hasMessageContaining("End of file while reading data");
            assertThat(((HostCallException) failure).reason()).isEqualTo(HostCallException.Reason.UNREACHABLE);
            assertLinkDropped();
        }

        @Test
        void verdictsOfTheWorkAreRethrownAndKeepTheLink() {
            List<RuntimeException> verdicts = List.of(
                    new ProviderException(ErrorKind.PERMANENT, Operation.CREATE, "kvm", "", "zone not configured"),
                    new IllegalArgumentException("machine type unknown"),
                    new IllegalStateException("seed build failed"),
                    new UploadSourceException("image ended early", null));

            for (RuntimeException verdict : verdicts) {
                assertThat(failureOf(() -> verdict)).isSameAs(verdict);
            }
            assertLinkKept();
        }

        @Test
        void anyOtherExceptionDropsTheLinkAndIsReportedUnreachable() {
            UncheckedIOException broken = new UncheckedIOException(new IOException("stream closed"));

            RuntimeException failure = failureOf(() -> broken);

            assertThat(failure).isInstanceOf(HostCallException.class).hasCause(broken);
            assertThat(((HostCallException) failure).reason()).isEqualTo(HostCallException.Reason.UNREACHABLE);
            assertLinkDropped();
        }

        @Test
        void anErrorDropsTheLinkAndPropagates() {
            class NativeCrash extends Error {
                private static final long serialVersionUID = 1L;
            }
            NativeCrash crash = new NativeCrash();

            assertThatThrownBy(() -> connections.call(ALPHA, TEN_SECONDS, libvirt -> {
                throw crash;
            })).isSameAs(crash);
            assertLinkDropped();
        }
    }

    @Nested
    class Closing {
        @Test
        void closesCachedLinksAndRefusesLaterCalls() throws Exception {
            hostInfo(ALPHA, TEN_SECONDS);
            FakeHostLink link = dialer.onlyLink("alpha");

            connections.close();

            assertThat(link.awaitClosed()).isTrue();
            assertThat(link.wasAborted()).as("a healthy link is closed gracefully").isFalse();
            assertThatThrownBy(() -> hostInfo(ALPHA, TEN_SECONDS)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed");
        }

        @Test
        void aDialThatFinishesAfterCloseIsDiscarded() throws Exception {
            CountDownLatch gate = dialer.holdDials("alpha");
            Future<?> waiting = callers.submit(() -> hostInfo(ALPHA, TEN_SECONDS));
            dialer.awaitDialStarted("alpha");

            connections.close();
            gate.countDown();

            assertThatThrownBy(() -> waiting.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(HostCallException.class);
            FakeHostLink late = dialer.onlyLink("alpha");
            assertThat(late.awaitClosed()).isTrue();
        }
    }
}

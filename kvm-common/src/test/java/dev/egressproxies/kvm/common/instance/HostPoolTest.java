package dev.egressproxies.kvm.common.instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrorCode;
import dev.egressproxies.kvm.common.libvirt.LibvirtException;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.HostInfo;
import dev.egressproxies.kvm.common.libvirt.UploadSourceException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

@Timeout(30)
class HostPoolTest {
    private static final HostSettings ALPHA = HostSettings.of("alpha", "alpha.example.invalid", "br0");
    private static final HostSettings BETA = HostSettings.of("beta", "beta.example.invalid", "br0");
    private static final Deadline TEN_SECONDS = Deadline.after(Duration.ofSeconds(10));
    /** How late after its deadline a caller may get its answer: the contract's "promptly". */
    private static final long PROMPT_MILLIS = 200;

    private final FakeDialer dialer = new FakeDialer();
    private final HostPool connections = new HostPool(dialer, Duration.ofSeconds(20), Optional.empty());
    private final ExecutorService callers = Executors.newCachedThreadPool();

    @AfterEach
    void releaseEverything() {
        dialer.releaseDials("alpha");
        dialer.releaseDials("beta");
        callers.shutdownNow();
        connections.close();
    }

    private static Call call(Deadline deadline) {
        return new Call("kvm", Operation.GET, "alpha/p", deadline);
    }

    private HostInfo hostInfo(HostSettings host, Deadline deadline) {
        return connections.call(host, call(deadline), libvirt -> libvirt.hostInfo());
    }

    private static ProviderException failureOf(ThrowingCallable call) {
        return catchThrowableOfType(ProviderException.class, call);
    }

    private static ProviderException transientFailure(String detail) {
        return new ProviderException(ErrorKind.TRANSIENT, Operation.GET, "kvm", "", detail);
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
        void aDialAheadIsTheOneTheNextCallUses() throws Exception {
            CountDownLatch gate = dialer.holdDials("alpha");

            connections.dialAhead(ALPHA, call(TEN_SECONDS));

            dialer.awaitDialStarted("alpha");
            connections.dialAhead(ALPHA, call(TEN_SECONDS));
            gate.countDown();
            assertThat(hostInfo(ALPHA, TEN_SECONDS).hostname()).isEqualTo("alpha");
            connections.dialAhead(ALPHA, call(TEN_SECONDS));
            assertThat(hostInfo(ALPHA, TEN_SECONDS).hostname()).isEqualTo("alpha");
            assertThat(dialer.dialCount("alpha")).isOne();
        }

        @Test
        void aDialAheadThatFailedIsMadeAgainByTheNextCall() throws Exception {
            dialer.fail("alpha", () -> transientFailure("sshd refused"));
            connections.dialAhead(ALPHA, call(TEN_SECONDS));
            dialer.awaitDialStarted("alpha");
            Thread.sleep(200); // lets the failing dial end before the call
            dialer.succeed("alpha");

            assertThat(hostInfo(ALPHA, TEN_SECONDS).hostname()).isEqualTo("alpha");
            assertThat(dialer.dialCount("alpha")).isEqualTo(2);
        }

        @Test
        void aClosedPoolRefusesToDialAhead() {
            connections.close();

            assertThatThrownBy(() -> connections.dialAhead(ALPHA, call(TEN_SECONDS)))
                    .isInstanceOf(IllegalStateException.class);
            assertThat(dialer.dialCount("alpha")).isZero();
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

            ProviderException failure = failureOf(() -> hostInfo(ALPHA, Deadline.after(Duration.ofMillis(300))));

            assertThat(failure.kind()).isEqualTo(ErrorKind.TRANSIENT);
            assertThat(failure.detail()).contains("deadline exceeded while waiting for host 'alpha'", "connecting");
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

            ProviderException failure = failureOf(() -> hostInfo(ALPHA, TEN_SECONDS));

            assertThat(failure.kind()).isEqualTo(ErrorKind.TRANSIENT);
            assertThat(failure).hasCauseInstanceOf(InterruptedException.class);
            assertThat(Thread.interrupted()).as("the interrupt flag is kept").isTrue();
        }
    }

    @Nested
    class DialFailures {
        @Test
        void unreachableHostFailsAndTheNextCallDialsAgain() {
            dialer.fail("alpha", () -> transientFailure("connection refused"));

            ProviderException failure = failureOf(() -> hostInfo(ALPHA, TEN_SECONDS));

            assertThat(failure.kind()).isEqualTo(ErrorKind.TRANSIENT);
            assertThat(failure.detail()).contains("host 'alpha' (alpha.example.invalid) could not be reached",
                    "connection refused");

            dialer.succeed("alpha");
            assertThat(hostInfo(ALPHA, TEN_SECONDS).hostname()).isEqualTo("alpha");
            assertThat(dialer.dialCount("alpha")).isEqualTo(2);
        }

        @Test
        void misconfigurationIsReportedAsTheDialerSaysIt() {
            dialer.fail("alpha", () -> new ProviderException(ErrorKind.PERMANENT, Operation.CREATE, "kvm", "",
                    "host key does not match known_hosts"));

            ProviderException failure = failureOf(() -> hostInfo(ALPHA, TEN_SECONDS));

            assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
            assertThat(failure.operation()).as("the waiter's own call").isEqualTo(Operation.GET);
            assertThat(failure.detail()).contains("cannot work as configured", "known_hosts",
                    "sshKeyFile, knownHostsFile");
        }

        @Test
        void anyOtherDialFailureCountsAsUnreachable() {
            dialer.fail("alpha", () -> new UncheckedIOException(new IOException("no route to host")));

            ProviderException failure = failureOf(() -> hostInfo(ALPHA, TEN_SECONDS));

            assertThat(failure.kind()).isEqualTo(ErrorKind.TRANSIENT);
            assertThat(failure).hasMessageContaining("no route to host").hasRootCauseInstanceOf(IOException.class);
        }

        @Test
        void everyWaiterOfAFailedDialGetsItsOwnException() throws Exception {
            CountDownLatch gate = dialer.holdDials("alpha");
            dialer.fail("alpha", () -> transientFailure("down"));
            Future<Throwable> first = callers.submit(() -> failureOf(() -> hostInfo(ALPHA, TEN_SECONDS)));
            Future<Throwable> second = callers.submit(() -> failureOf(() -> hostInfo(ALPHA, TEN_SECONDS)));
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

            ProviderException failure = failureOf(() -> hostInfo(ALPHA, Deadline.after(Duration.ofMillis(500))));

            assertThat(failure.kind()).isEqualTo(ErrorKind.TRANSIENT);
            assertThat(failure.detail()).startsWith("deadline exceeded while waiting for host 'alpha'");
            assertThat(millisSince(started)).isBetween(450L, 500 + PROMPT_MILLIS);
            assertThat(link.wasAborted()).isTrue();
            assertThat(link.wasClosed()).isTrue();
        }

        @Test
        void theNextCallAfterADeadlineRedials() {
            hostInfo(ALPHA, TEN_SECONDS);
            dialer.onlyLink("alpha").hang();
            assertThatThrownBy(() -> hostInfo(ALPHA, Deadline.after(Duration.ofMillis(200))))
                    .isInstanceOf(ProviderException.class);

            assertThat(hostInfo(ALPHA, TEN_SECONDS).hostname()).isEqualTo("alpha");

            assertThat(dialer.dialCount("alpha")).isEqualTo(2);
        }

        @Test
        void theAbandonedCallsLateFailureLeavesTheNewLinkAlone() throws Exception {
            hostInfo(ALPHA, TEN_SECONDS);
            FakeHostLink first = dialer.links("alpha").get(0);
            first.hang();
            assertThatThrownBy(() -> hostInfo(ALPHA, Deadline.after(Duration.ofMillis(200))))
                    .isInstanceOf(ProviderException.class);
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

            ProviderException failure = failureOf(() -> hostInfo(ALPHA, TEN_SECONDS));

            assertThat(failure).hasCauseInstanceOf(InterruptedException.class);
            assertThat(millisSince(interruptedAt[0])).isLessThan(PROMPT_MILLIS);
            assertThat(Thread.interrupted()).as("the interrupt flag is kept").isTrue();
            assertThat(link.wasAborted()).isTrue();
        }

        @Test
        void aDeadlineAlreadyPassedFailsWithoutDialling() {
            ProviderException failure = failureOf(() -> hostInfo(ALPHA, Deadline.after(Duration.ZERO)));

            assertThat(failure.kind()).isEqualTo(ErrorKind.TRANSIENT);
            assertThat(failure.detail()).contains("deadline");
            assertThat(dialer.dialCount("alpha")).isZero();
        }

        @Test
        void anAlreadyInterruptedThreadFailsWithoutDialling() {
            Thread.currentThread().interrupt();

            ProviderException failure = failureOf(() -> hostInfo(ALPHA, TEN_SECONDS));

            assertThat(failure).hasCauseInstanceOf(InterruptedException.class);
            assertThat(Thread.interrupted()).isTrue();
            assertThat(dialer.dialCount("alpha")).isZero();
        }
    }

    @Nested
    class FailuresOfTheWork {
        private RuntimeException failureOf(Supplier<? extends Throwable> thrown) {
            return catchThrowableOfType(RuntimeException.class, () -> connections.call(ALPHA, call(TEN_SECONDS), libvirt -> {
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
            String result = connections.call(ALPHA, call(TEN_SECONDS), libvirt -> "result");

            assertThat(result).isEqualTo("result");
        }

        @Test
        void aLibvirtAnswerIsClassifiedByItsCodeAndKeepsTheLink() {
            LibvirtException noDomain = new LibvirtException(LibvirtErrorCode.NO_DOMAIN, "no domain 'x'");

            ProviderException failure = (ProviderException) failureOf(() -> noDomain);

            assertThat(failure.kind()).isEqualTo(ErrorKind.NOT_FOUND);
            assertThat(failure).hasCause(noDomain);
            assertThat(failure.detail()).contains("libvirt on host 'alpha' failed: no domain 'x'");
            assertLinkKept();
        }

        @Test
        void aDomainMissingOnGetIsNotFoundButElsewhereTransient() {
            LibvirtException missing = new LibvirtException(LibvirtErrorCode.NO_DOMAIN, "Domain not found");
            Call delete = new Call("kvm", Operation.DELETE, "alpha/p", TEN_SECONDS);

            assertThat(HostPool.libvirtFailure(missing, ALPHA, call(TEN_SECONDS)).kind()).isEqualTo(ErrorKind.NOT_FOUND);
            assertThat(HostPool.libvirtFailure(missing, ALPHA, delete).kind()).isEqualTo(ErrorKind.TRANSIENT);
        }

        @Test
        void aLibvirtTransportErrorDropsTheLinkAndIsReportedUnreachable() {
            LibvirtException broken = new LibvirtException(LibvirtErrorCode.RPC, "End of file while reading data");

            RuntimeException failure = failureOf(() -> broken);

            assertThat(failure).isInstanceOf(ProviderException.class).hasCause(broken)
                    .hasMessageContaining("End of file while reading data")
                    .hasMessageContainingAll("libvirt on host 'alpha' failed", "retry");
            assertThat(((ProviderException) failure).kind()).isEqualTo(ErrorKind.TRANSIENT);
            assertLinkDropped();
        }

        @Test
        void theWorksOwnVerdictIsRethrownAndKeepsTheLink() {
            ProviderException verdict = new ProviderException(ErrorKind.PERMANENT, Operation.CREATE, "kvm", "",
                    "zone not configured");

            assertThat(failureOf(() -> verdict)).isSameAs(verdict);
            assertLinkKept();
        }

        @ParameterizedTest
        @MethodSource("dev.egressproxies.kvm.common.instance.HostPoolTest#notAnswers")
        void anyOtherExceptionDropsTheLinkAndIsTransient(RuntimeException broken) {
            RuntimeException failure = failureOf(() -> broken);

            assertThat(failure).isInstanceOf(ProviderException.class).hasCause(broken)
                    .hasMessageContaining("unexpected failure while talking to host 'alpha'");
            assertThat(((ProviderException) failure).kind()).isEqualTo(ErrorKind.TRANSIENT);
            assertLinkDropped();
        }

        @Test
        void anErrorDropsTheLinkAndPropagates() {
            class NativeCrash extends Error {
                private static final long serialVersionUID = 1L;
            }
            NativeCrash crash = new NativeCrash();

            assertThatThrownBy(() -> connections.call(ALPHA, call(TEN_SECONDS), libvirt -> {
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

            assertThatThrownBy(() -> waiting.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class);
            FakeHostLink late = dialer.onlyLink("alpha");
            assertThat(late.awaitClosed()).isTrue();
        }
    }

    /** Exceptions that are neither the work's verdict nor libvirt's answer, so the link is not trusted. */
    static List<RuntimeException> notAnswers() {
        return List.of(new UncheckedIOException(new IOException("stream closed")),
                new IllegalArgumentException("machine type unknown"), new IllegalStateException("seed build failed"),
                new UploadSourceException("image ended early", null));
    }

    @Nested
    class Budget {
        @Test
        void theBudgetBoundsEachCallAndACallItCutsOffNamesIt() {
            try (HostPool budgeted = new HostPool(dialer, Duration.ofSeconds(20), Optional.of(Duration.ofMillis(1500)))) {
                budgeted.call(ALPHA, call(TEN_SECONDS), libvirt -> libvirt.hostInfo());
                dialer.onlyLink("alpha").hang();
                long started = System.nanoTime();

                ProviderException error = failureOf(() -> budgeted.call(ALPHA,
                        call(Deadline.after(Duration.ofMinutes(5))), libvirt -> libvirt.hostInfo()));

                assertThat(millisSince(started)).isBetween(1400L, 1500 + PROMPT_MILLIS);
                assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
                assertThat(error.detail()).contains("host 'alpha' (alpha.example.invalid) did not finish the"
                        + " call within its budget of 1500ms (rpcBudget)");
            }
        }

        @Test
        void aCallerDeadlineShorterThanTheBudgetIsTheOneThatCounts() {
            try (HostPool budgeted = new HostPool(dialer, Duration.ofSeconds(20), Optional.of(Duration.ofMinutes(2)))) {
                budgeted.call(ALPHA, call(TEN_SECONDS), libvirt -> libvirt.hostInfo());
                dialer.onlyLink("alpha").hang();

                ProviderException error = failureOf(() -> budgeted.call(ALPHA,
                        call(Deadline.after(Duration.ofMillis(300))), libvirt -> libvirt.hostInfo()));

                assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
                assertThat(error.detail()).startsWith("deadline exceeded while waiting for host 'alpha'")
                        .doesNotContain("rpcBudget");
            }
        }
    }
}

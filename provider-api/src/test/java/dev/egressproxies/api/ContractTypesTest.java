package dev.egressproxies.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ContractTypesTest {

    @Test
    void runningNeedsAnAddress() {
        assertThatThrownBy(() -> new Instance("h/p", "p", "", InstanceState.RUNNING, "u", null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(new Instance("h/p", "p", "198.51.100.7", InstanceState.RUNNING, "u", null).ip())
                .isEqualTo("198.51.100.7");
    }

    @Test
    void stateFollowsActivityAndAddress() {
        assertThat(InstanceState.of(true, "")).isEqualTo(InstanceState.PROVISIONING);
        assertThat(InstanceState.of(true, "192.0.2.1")).isEqualTo(InstanceState.RUNNING);
        assertThat(InstanceState.of(false, "192.0.2.1")).isEqualTo(InstanceState.STOPPED);
    }

    @Test
    void exceptionMessageNamesOperationEntryAndInstance() {
        ProviderException e = new ProviderException(ErrorKind.NOT_FOUND, Operation.GET, "kvm-a", "h1/p",
                "no such domain");
        assertThat(e).hasMessage("get on provider entry 'kvm-a' for instance 'h1/p': no such domain");
        assertThat(new ProviderException(ErrorKind.TRANSIENT, Operation.LIST_MANAGED, "kvm-a", null, "down"))
                .hasMessage("listManaged on provider entry 'kvm-a': down");
    }

    @Test
    void interruptedKeepsTheInterruptFlag() {
        try {
            ProviderException e = ProviderException.interrupted(Operation.GET, "f", "i", new InterruptedException());
            assertThat(e.kind()).isEqualTo(ErrorKind.TRANSIENT);
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void deadlineExpiresAndCombinesWithBudgets() throws InterruptedException {
        Deadline soon = Deadline.after(Duration.ofMillis(20));
        assertThat(soon.isExpired()).isFalse();
        Thread.sleep(40);
        assertThat(soon.isExpired()).isTrue();
        assertThat(soon.remaining()).isEqualTo(Duration.ZERO);
        assertThatThrownBy(() -> soon.check(Operation.GET, "f", "i"))
                .isInstanceOfSatisfying(ProviderException.class,
                        e -> assertThat(e.kind()).isEqualTo(ErrorKind.TRANSIENT));

        assertThat(Deadline.none().isExpired()).isFalse();
        assertThat(Deadline.none().within(Duration.ofSeconds(1)).isBounded()).isTrue();
        Deadline late = Deadline.after(Duration.ofHours(1));
        assertThat(late.within(Duration.ofSeconds(1)).remaining()).isLessThanOrEqualTo(Duration.ofSeconds(1));
        Deadline early = Deadline.after(Duration.ofSeconds(1));
        assertThat(early.within(Duration.ofHours(1))).isSameAs(early);
        assertThat(Deadline.after(Duration.ofSeconds(Long.MAX_VALUE)).isExpired()).isFalse();
    }

    @Test
    void aPreflightWarningIsAPassedCheckAndAFailedCheckIsNeverAWarning() {
        assertThat(PreflightCheck.warning("unused", "remove it")).extracting(PreflightCheck::passed,
                PreflightCheck::warning).containsExactly(true, true);
        assertThat(PreflightCheck.passed("ok", null).warning()).isFalse();
        assertThat(new PreflightCheck("broken", false, "fix it", true).warning()).isFalse();
        assertThat(new PreflightCheck("three", true, "d")).isEqualTo(PreflightCheck.passed("three", "d"));
    }
}

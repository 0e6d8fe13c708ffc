package dev.egressproxies.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.InstanceState;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.runtime.output.QualifiedId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The wait loop on a scripted provider and a fake clock: what it returns, how often it polls. */
class InstanceWaiterTest {
    private static final QualifiedId A = new QualifiedId("lab", "zone-a/a");
    private static final QualifiedId B = new QualifiedId("lab", "zone-a/b");

    private long now;
    private final List<Duration> pauses = new ArrayList<>();
    private final ScriptedProvider provider = new ScriptedProvider();
    private final InstanceWaiter waiter = new InstanceWaiter(entry -> provider, () -> now, pause -> {
        pauses.add(pause);
        now += pause.toNanos();
    });

    @Test
    void returnsOnceEveryInstanceRunsWithAnAddress() throws InterruptedException {
        provider.script("zone-a/a", provisioning("zone-a/a"), provisioning("zone-a/a"), running("zone-a/a"));
        provider.script("zone-a/b", running("zone-a/b"));

        InstanceWaiter.Outcome outcome = waiter.await(List.of(A, B), InstanceWaiter.Goal.RUNNING, Duration.ofMinutes(1));

        assertThat(outcome.complete()).isTrue();
        assertThat(outcome.reached().keySet()).containsExactly(A, B);
        assertThat(outcome.reached().get(A).ip()).isEqualTo("198.51.100.7");
        assertThat(provider.polls).containsExactly("zone-a/a", "zone-a/b", "zone-a/a", "zone-a/a");
    }

    @Test
    void pausesGrowFromAQuarterSecondToFiveSeconds() throws InterruptedException {
        provider.script("zone-a/a", provisioning("zone-a/a"));

        InstanceWaiter.Outcome outcome = waiter.await(List.of(A), InstanceWaiter.Goal.RUNNING, Duration.ofMinutes(1));

        assertThat(outcome.missing()).containsEntry(A, "it is PROVISIONING, without an address yet");
        assertThat(pauses.get(0)).isEqualTo(Duration.ofMillis(250));
        assertThat(pauses.get(1)).isEqualTo(Duration.ofMillis(375));
        assertThat(pauses).allSatisfy(pause -> assertThat(pause).isLessThanOrEqualTo(Duration.ofSeconds(5)));
        assertThat(pauses.subList(10, pauses.size() - 1)).allSatisfy(pause -> assertThat(pause)
                .isEqualTo(Duration.ofSeconds(5)));
        assertThat(Duration.ofNanos(now)).as("the last pause ends at the limit, not after it").isEqualTo(Duration.ofMinutes(1));
        assertThat(provider.polls.size()).as("one poll at the start, one after each pause").isEqualTo(pauses.size() + 1);
    }

    @Test
    void aTimeoutNamesWhatEachInstanceLacks() throws InterruptedException {
        provider.script("zone-a/a", stopped("zone-a/a"));
        provider.script("zone-a/b", running("zone-a/b"));

        InstanceWaiter.Outcome outcome = waiter.await(List.of(A, B), InstanceWaiter.Goal.RUNNING, Duration.ofSeconds(3));

        assertThat(outcome.complete()).isFalse();
        assertThat(outcome.missing()).containsOnlyKeys(A);
        assertThat(outcome.missing().get(A)).contains("STOPPED");
        assertThat(outcome.reached()).containsOnlyKeys(B);
    }

    @Test
    void aMissingInstanceEndsAWaitForRunningAtOnce() throws InterruptedException {
        provider.script("zone-a/b", provisioning("zone-a/b"));

        InstanceWaiter.Outcome outcome = waiter.await(List.of(A, B), InstanceWaiter.Goal.RUNNING, Duration.ofMinutes(1));

        assertThat(outcome.unknown()).containsOnlyKeys(A);
        assertThat(pauses).isEmpty();
        assertThat(WaitCommand.exitCode(outcome)).isEqualTo(ExitCode.NOT_FOUND);
    }

    @Test
    void aWaitForDeletedEndsWhenGetSaysNotFound() throws InterruptedException {
        provider.script("zone-a/a", running("zone-a/a"), stopped("zone-a/a"), null);

        InstanceWaiter.Outcome outcome = waiter.await(List.of(A, B), InstanceWaiter.Goal.DELETED, Duration.ofMinutes(1));

        assertThat(outcome.complete()).isTrue();
        assertThat(outcome.reached()).containsOnlyKeys(A, B);
        assertThat(WaitCommand.exitCode(outcome)).isEqualTo(ExitCode.OK);
    }

    @Test
    void aTransientFailureIsRetriedAndReportedIfItLasts() throws InterruptedException {
        provider.failing("zone-a/a", ErrorKind.TRANSIENT, 2);
        provider.script("zone-a/a", running("zone-a/a"));
        assertThat(waiter.await(List.of(A), InstanceWaiter.Goal.RUNNING, Duration.ofMinutes(1)).complete()).isTrue();

        provider.failing("zone-a/b", ErrorKind.TRANSIENT, 1000);
        InstanceWaiter.Outcome outcome = waiter.await(List.of(B), InstanceWaiter.Goal.RUNNING, Duration.ofSeconds(2));
        assertThat(outcome.missing().get(B)).startsWith("its last poll failed: ").contains("host busy");
        assertThat(WaitCommand.exitCode(outcome)).isEqualTo(ExitCode.TRANSIENT);
    }

    @Test
    void aPermanentFailureEndsTheWait() {
        provider.failing("zone-a/a", ErrorKind.PERMANENT, 1);
        assertThatThrownBy(() -> waiter.await(List.of(A), InstanceWaiter.Goal.RUNNING, Duration.ofMinutes(1)))
                .isInstanceOf(ProviderException.class);
    }

    @Test
    void theFirstPollOfAShortWaitStillLooks() throws InterruptedException {
        provider.script("zone-a/a", running("zone-a/a"));
        assertThat(waiter.await(List.of(A), InstanceWaiter.Goal.RUNNING, Duration.ofMillis(1)).complete()).isTrue();
        assertThat(provider.deadlines.get(0)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
    }

    private static Instance provisioning(String id) {
        return new Instance(id, "a", "", InstanceState.PROVISIONING, "u", null);
    }

    private static Instance running(String id) {
        return new Instance(id, "a", "198.51.100.7", InstanceState.RUNNING, "u", null);
    }

    private static Instance stopped(String id) {
        return new Instance(id, "a", "", InstanceState.STOPPED, "u", null);
    }

    /** Answers get from a script per ID (the last answer repeats; null is NOT_FOUND); an ID without one is NOT_FOUND. */
    private static final class ScriptedProvider implements Provider {
        final List<String> polls = new ArrayList<>();
        final List<Duration> deadlines = new ArrayList<>();
        private final Map<String, List<Instance>> scripts = new HashMap<>();
        private final Map<String, Integer> answered = new HashMap<>();
        private final Map<String, Integer> failures = new HashMap<>();
        private final Map<String, ErrorKind> failureKinds = new HashMap<>();

        void script(String id, Instance... answers) {
            scripts.put(id, java.util.Arrays.asList(answers));
            answered.put(id, 0);
        }

        void failing(String id, ErrorKind kind, int times) {
            failures.put(id, times);
            failureKinds.put(id, kind);
        }

        @Override
        public Instance get(String id, Deadline deadline) {
            polls.add(id);
            deadlines.add(deadline.remaining());
            if (failures.getOrDefault(id, 0) > 0) {
                failures.merge(id, -1, Integer::sum);
                throw new ProviderException(failureKinds.get(id), Operation.GET, "lab", id, "host busy");
            }
            List<Instance> script = scripts.getOrDefault(id, List.of());
            int index = Math.min(answered.merge(id, 1, Integer::sum) - 1, script.size() - 1);
            if (index < 0 || script.get(index) == null) {
                throw new ProviderException(ErrorKind.NOT_FOUND, Operation.GET, "lab", id, "no such instance");
            }
            return script.get(index);
        }

        @Override
        public String create(CreateRequest request, Deadline deadline) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void delete(String id, Deadline deadline) {
            throw new UnsupportedOperationException();
        }

        @Override
        public List<Instance> listManaged(Deadline deadline) {
            return List.of();
        }
    }
}

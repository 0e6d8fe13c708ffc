package dev.egressproxies.runtime.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.InstanceState;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Placement;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReconcilerTest {
    private static final Duration RESYNC = Duration.ofHours(1);

    @TempDir
    Path folder;

    @Test
    void createsWhatIsMissingAndRecreatesAnInstanceDeletedBehindItsBack() throws Exception {
        try (ServeFixture serve = new ServeFixture(folder)) {
            serve.desire(List.of("p1", "p2", "p3"));
            serve.start(RESYNC);
            ServeFixture.await("three instances", () -> serve.instances().size() == 3);
            serve.provider.delete("zone-b/p2", Deadline.after(Duration.ofSeconds(5)));

            serve.reconciler.requestPass(Optional.empty());

            ServeFixture.await("p2 again", () -> serve.instances().stream().anyMatch(i -> i.name().equals("p2")));
            assertThat(serve.instances()).extracting(Instance::name).containsExactlyInAnyOrder("p1", "p2", "p3");
            ServeFixture.await("views RUNNING", () -> serve.reconciler.proxies().stream()
                    .allMatch(view -> view.state() == ProxyState.RUNNING && view.outcome() == Outcome.OK));
            assertThat(serve.log()).contains("create lab/zone-b/p2: ok");
        }
    }

    @Test
    void aProxyMovedToAnotherZoneIsReplaced() throws Exception {
        try (ServeFixture serve = new ServeFixture(folder)) {
            serve.desire(List.of("p1"));
            serve.start(RESYNC);
            ServeFixture.await("p1 in zone-a", () -> serve.instances().stream().anyMatch(i -> i.id().equals("zone-a/p1")));
            serve.write("proxies:\n  - {name: p1, provider: lab, zone: zone-b, machineType: small, image: debian-12}\n");
            serve.reconciler.reload("test");

            ServeFixture.await("p1 in zone-b", () -> serve.instances().stream()
                    .anyMatch(i -> i.id().equals("zone-b/p1")));
            assertThat(serve.instances()).extracting(Instance::id).containsExactly("zone-b/p1");
            assertThat(serve.log()).contains("replace lab/zone-b/p1: ok");
        }
    }

    @Test
    void startsAStoppedInstance() throws Exception {
        try (ServeFixture serve = new ServeFixture(folder)) {
            serve.desire(List.of("p1"));
            serve.start(RESYNC);
            ServeFixture.await("p1", () -> serve.instances().size() == 1);
            serve.provider.stop("zone-a/p1");

            serve.reconciler.requestPass(Optional.empty());

            ServeFixture.await("p1 running", () -> serve.instances().get(0).state() == InstanceState.RUNNING);
            assertThat(serve.log()).contains("start lab/zone-a/p1: ok");
        }
    }

    @Test
    void aZoneThatDoesNotAnswerStopsCreatesAndShowsItsProxiesAsUnknown() throws Exception {
        try (ServeFixture serve = new ServeFixture(folder)) {
            serve.desire(List.of("p1", "p2"));
            serve.start(RESYNC);
            ServeFixture.await("two instances", () -> serve.instances().size() == 2);
            serve.provider.faults().makeZoneUnreadable("zone-b");
            serve.desire(List.of("p1", "p2", "p3"));
            serve.reconciler.reload("test");

            ServeFixture.await("p3 waiting", () -> serve.reconciler.proxy("lab", "p3")
                    .filter(view -> view.outcome() == Outcome.WAITING).isPresent());
            assertThat(serve.reconciler.proxy("lab", "p2").orElseThrow().state()).isEqualTo(ProxyState.UNKNOWN);
            assertThat(serve.reconciler.proxy("lab", "p3").orElseThrow().error()).contains("zone zone-b does not answer");
            assertThat(serve.reconciler.proxy("lab", "p1").orElseThrow().state()).isEqualTo(ProxyState.RUNNING);
            EntryView entry = serve.reconciler.entries().get(0);
            assertThat(entry.hosts()).filteredOn(host -> host.zone().equals("zone-b"))
                    .singleElement().satisfies(host -> {
                        assertThat(host.up()).isFalse();
                        assertThat(host.downSince()).isNotNull();
                        assertThat(host.error()).contains("zone 'zone-b' cannot be read");
                    });
            serve.provider.faults().clear();
            serve.reconciler.requestPass(Optional.empty());

            ServeFixture.await("p3 made", () -> serve.instances().size() == 3);
            assertThat(serve.reconciler.entries().get(0).hosts()).allMatch(HostView::up);
        }
    }

    @Test
    void deletesOfMoreThanHalfTheEntryAreHeldUntilConfirmed() throws Exception {
        try (ServeFixture serve = new ServeFixture(folder)) {
            serve.desire(List.of("p1", "p2", "p3", "p4"));
            serve.start(RESYNC);
            ServeFixture.await("four instances", () -> serve.instances().size() == 4);
            serve.desire(List.of("p1"));
            serve.reconciler.reload("test");

            ServeFixture.await("three held", () -> serve.reconciler.entries().get(0).pendingDeletes().size() == 3
                    && serve.reconciler.proxy("lab", "p2").orElseThrow().outcome() == Outcome.HELD);
            assertThat(serve.instances()).hasSize(4);
            assertThat(serve.reconciler.proxy("lab", "p2").orElseThrow().outcome()).isEqualTo(Outcome.HELD);
            assertThat(serve.reconciler.confirmDeletes("lab").orElseThrow())
                    .containsExactlyInAnyOrder("lab/zone-b/p2", "lab/zone-a/p3", "lab/zone-b/p4");

            ServeFixture.await("one left", () -> serve.instances().size() == 1);
            assertThat(serve.reconciler.entries().get(0).pendingDeletes()).isEmpty();
        }
    }

    @Test
    void halfOfTheEntryIsDeletedWithoutConfirmation() throws Exception {
        try (ServeFixture serve = new ServeFixture(folder)) {
            serve.desire(List.of("p1", "p2", "p3", "p4"));
            serve.start(RESYNC);
            ServeFixture.await("four instances", () -> serve.instances().size() == 4);
            serve.desire(List.of("p1", "p2"));
            serve.reconciler.reload("test");

            ServeFixture.await("two left", () -> serve.instances().size() == 2);
        }
    }

    @Test
    void confirmDeletesAtStartLetsTheFirstHeldDeletesGo() throws Exception {
        try (ServeFixture first = new ServeFixture(folder)) {
            first.desire(List.of("p1", "p2", "p3"));
            first.start(RESYNC);
            ServeFixture.await("three", () -> first.instances().size() == 3);
            // The same instances, seen by a serve that restarts with --confirm-deletes lab.
            first.stop(Duration.ZERO);
            List<Instance> before = first.instances();
            try (ServeFixture second = new ServeFixture(folder, Backoff.DEFAULT, 4, Set.of("lab"))) {
                for (Instance instance : before) {
                    second.provider.create(new CreateRequest(instance.name(), "uid",
                            new Placement(instance.placement().zone(), "small", "debian-12"), ""),
                            Deadline.after(Duration.ofSeconds(5)));
                }
                second.desire(List.of());
                second.start(RESYNC);
                ServeFixture.await("all deleted", () -> second.instances().isEmpty());
            }
        }
    }

    @Test
    void aFailingProxyBacksOffWithItsNextAttemptShownAndRecovers() throws Exception {
        try (ServeFixture serve = new ServeFixture(folder)) {
            serve.provider.faults().failAlways(Operation.CREATE, ErrorKind.TRANSIENT);
            serve.desire(List.of("p1"));
            serve.start(RESYNC);

            ServeFixture.await("two failures", () -> serve.reconciler.proxy("lab", "p1")
                    .filter(view -> view.attempts() >= 2).isPresent());
            ProxyView failing = serve.reconciler.proxy("lab", "p1").orElseThrow();
            assertThat(failing.outcome()).isEqualTo(Outcome.FAILED);
            assertThat(failing.errorKind()).isEqualTo(ErrorKind.TRANSIENT);
            assertThat(failing.nextAttempt()).isAfter(failing.lastReconcile());
            serve.provider.faults().clear();

            ServeFixture.await("p1 made", () -> serve.instances().size() == 1);
            ServeFixture.await("reset", () -> serve.reconciler.proxy("lab", "p1")
                    .filter(view -> view.attempts() == 0 && view.outcome() == Outcome.OK).isPresent());
        }
    }

    @Test
    void aFileThatFailsItsChecksChangesNothingAndNamesItsProblems() throws Exception {
        try (ServeFixture serve = new ServeFixture(folder)) {
            serve.desire(List.of("p1"));
            serve.start(RESYNC);
            ServeFixture.await("p1", () -> serve.instances().size() == 1);
            String revision = serve.reconciler.desired().revision();
            serve.write("proxies:\n  - {name: p1, provider: lab, zone: zone-q, machineType: small, image: debian-12}\n"
                    + "  - {name: p2, provider: nowhere, machineType: small, image: debian-12}\n");

            ServeFixture.await("rejected", () -> !serve.reconciler.desired().problems().isEmpty());
            assertThat(serve.reconciler.desired().revision()).isEqualTo(revision);
            assertThat(serve.reconciler.desired().problems()).hasSize(2)
                    .anySatisfy(problem -> assertThat(problem).contains("zone-q"))
                    .anySatisfy(problem -> assertThat(problem).contains("no provider entry named 'nowhere'"));
            serve.reconciler.resync();
            assertThat(serve.instances()).extracting(Instance::name).containsExactly("p1");
            assertThat(serve.log()).contains("desired set rejected; the last good set stays in force");
        }
    }

    @Test
    void anEditOfTheFileIsPickedUpWithoutBeingAskedFor() throws Exception {
        try (ServeFixture serve = new ServeFixture(folder)) {
            serve.desire(List.of("p1"));
            serve.start(RESYNC);
            ServeFixture.await("p1", () -> serve.instances().size() == 1);

            serve.desire(List.of("p1", "p2"));

            ServeFixture.await("p2", () -> serve.instances().size() == 2);
        }
    }

    @Test
    void stopInterruptsAnOperationThatOutlivesTheGracePeriod() throws Exception {
        try (ServeFixture serve = new ServeFixture(folder)) {
            serve.provider.faults().hang(Operation.CREATE);
            serve.desire(List.of("p1"));
            serve.start(RESYNC);
            ServeFixture.await("in flight", () -> serve.reconciler.proxy("lab", "p1")
                    .filter(view -> view.outcome() == Outcome.IN_FLIGHT).isPresent());

            Instant before = Instant.now();
            assertThat(serve.stop(Duration.ofMillis(300))).isTrue();

            assertThat(Duration.between(before, Instant.now())).isLessThan(Duration.ofSeconds(5));
            assertThat(serve.reconciler.proxy("lab", "p1").orElseThrow().outcome()).isEqualTo(Outcome.INTERRUPTED);
            assertThat(serve.instances()).isEmpty();
        }
    }

    @Test
    void problemsOfARejectionAreListedOnePerLine() {
        assertThat(Reconciler.problemsOf("f.yaml: 2 problems, nothing was changed:\n  a: wrong\n  b: also"))
                .containsExactly("a: wrong", "b: also");
        assertThat(Reconciler.problemsOf("f.yaml (line 2): not valid YAML: x\n in 'reader'"))
                .containsExactly("f.yaml (line 2): not valid YAML: x in 'reader'");
    }
}

package dev.egressproxies.runtime.apply;

import static dev.egressproxies.runtime.apply.RecordingProvider.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.InstanceState;
import dev.egressproxies.api.Placement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PlannerTest {
    private final Planner planner = new Planner();

    @Test
    void createsWhatIsMissingStartsWhatIsStoppedAndDeletesWhatIsNotListed() {
        Plan plan = planner.plan(
                List.of(proxy("a", "new"), proxy("a", "stopped"), proxy("a", "running"), proxy("b", "fresh")),
                Map.of("a", List.of(unplaced("stopped", InstanceState.STOPPED),
                                unplaced("running", InstanceState.RUNNING), unplaced("old", InstanceState.RUNNING)),
                        "b", List.of()));
        assertThat(plan.steps()).extracting(PlanStep::action, PlanStep::entry, PlanStep::name).containsExactly(
                tuple(PlanStep.Action.CREATE, "a", "new"),
                tuple(PlanStep.Action.START, "a", "stopped"),
                tuple(PlanStep.Action.CREATE, "b", "fresh"),
                tuple(PlanStep.Action.DELETE, "a", "old"));
        assertThat(plan.unchanged()).isEqualTo(1);
        assertThat(plan.steps().get(3).id()).isEqualTo("zone/old");
    }

    @Test
    void provisioningCountsAsPresent() {
        Plan plan = planner.plan(List.of(proxy("a", "booting")),
                Map.of("a", List.of(unplaced("booting", InstanceState.PROVISIONING))));
        assertThat(plan.isEmpty()).isTrue();
        assertThat(plan.unchanged()).isEqualTo(1);
    }

    @Test
    void onlyTheNamedEntriesAreTouched() {
        Plan plan = planner.plan(List.of(), Map.of("a", List.of(unplaced("x", InstanceState.RUNNING))));
        assertThat(plan.steps()).extracting(PlanStep::entry).containsOnly("a");
    }

    @Test
    void anInstanceWithAnotherZoneMachineTypeOrImageIsReplacedAfterCreatesAndBeforeDeletes() {
        Plan plan = planner.plan(
                List.of(proxy("lab", "moved", "zone-a", "large", "debian-12"), proxy("lab", "new", "zone-a", "small",
                        "debian-12"), proxy("lab", "reimaged", "zone-b", "small", "debian-13")),
                Map.of("lab", List.of(
                        instance("zone-b", "moved", InstanceState.RUNNING, "small", "debian-12", ""),
                        instance("zone-b", "old", InstanceState.RUNNING, "small", "debian-12", ""),
                        instance("zone-b", "reimaged", InstanceState.STOPPED, "small", "debian-12", ""))));
        assertThat(plan.steps()).extracting(PlanStep::action, PlanStep::name, PlanStep::id).containsExactly(
                tuple(PlanStep.Action.CREATE, "new", ""),
                tuple(PlanStep.Action.REPLACE, "moved", "zone-b/moved"),
                tuple(PlanStep.Action.REPLACE, "reimaged", "zone-b/reimaged"),
                tuple(PlanStep.Action.DELETE, "old", "zone-b/old"));
        assertThat(plan.steps().get(1).changes()).extracting(Drift.Change::toString)
                .containsExactly("zone: zone-b -> zone-a", "machineType: small -> large");
        assertThat(plan.steps().get(2).changes()).extracting(Drift.Change::toString)
                .containsExactly("image: debian-12 -> debian-13");
        assertThat(plan.count(PlanStep.Action.REPLACE)).isEqualTo(2);
    }

    @Test
    void otherUserDataIsAReplacementShownByShortDigests() {
        ResolvedProxy proxy = new ResolvedProxy("lab", new CreateRequest("web", "u", new Placement("zone-a", "small",
                "debian-12"), "#cloud-config\n"));
        String old = new CreateRequest("web", "u", Placement.UNKNOWN, "").cloudInitSha256();
        Plan plan = planner.plan(List.of(proxy), Map.of("lab", List.of(
                instance("zone-a", "web", InstanceState.RUNNING, "small", "debian-12", old))));
        assertThat(plan.steps()).singleElement().satisfies(step -> {
            assertThat(step.action()).isEqualTo(PlanStep.Action.REPLACE);
            assertThat(step.changes()).singleElement().hasToString("userData: sha256:" + old.substring(0, 12)
                    + " -> sha256:" + proxy.request().cloudInitSha256().substring(0, 12));
        });
    }

    @Test
    void valuesAnInstanceDoesNotKnowNeverCauseAReplacement() {
        Plan plan = planner.plan(List.of(new ResolvedProxy("lab", new CreateRequest("web", "u",
                        new Placement("zone-a", "large", "debian-13"), "#cloud-config\n"))),
                Map.of("lab", List.of(instance("zone-b", "web", InstanceState.RUNNING, "", "", ""))));
        assertThat(plan.steps()).singleElement().satisfies(step -> assertThat(step.changes())
                .extracting(Drift.Change::toString).as("only the zone is known").containsExactly("zone: zone-b -> zone-a"));

        Plan unknown = planner.plan(List.of(proxy("lab", "web", "zone-a", "large", "debian-13")),
                Map.of("lab", List.of(new Instance("zone-a/web", "web", "198.51.100.1", InstanceState.RUNNING, "u",
                        null))));
        assertThat(unknown.isEmpty()).as("placement and user-data unknown").isTrue();
    }

    @Test
    void anEmptyDesiredZoneMatchesAnyZone() {
        Plan plan = planner.plan(List.of(proxy("lab", "web", "", "small", "debian-12")),
                Map.of("lab", List.of(instance("zone-b", "web", InstanceState.RUNNING, "small", "debian-12",
                        new CreateRequest("web", "u", Placement.UNKNOWN, "").cloudInitSha256()))));
        assertThat(plan.isEmpty()).isTrue();
    }

    @Test
    void aNameHeldTwiceKeepsTheMatchingInstanceAndDeletesTheOther() {
        Plan plan = planner.plan(List.of(proxy("lab", "web", "zone-b", "small", "debian-12")),
                Map.of("lab", List.of(instance("zone-a", "web", InstanceState.RUNNING, "small", "debian-12", ""),
                        instance("zone-b", "web", InstanceState.RUNNING, "small", "debian-12", ""))));
        assertThat(plan.steps()).extracting(PlanStep::action, PlanStep::id)
                .containsExactly(tuple(PlanStep.Action.DELETE, "zone-a/web"));
        assertThat(plan.unchanged()).isEqualTo(1);
    }

    private static ResolvedProxy proxy(String entry, String name) {
        return new ResolvedProxy(entry, new CreateRequest(name, "uid-" + name, new Placement("", "m", "i"), ""));
    }

    private static ResolvedProxy proxy(String entry, String name, String zone, String machineType, String image) {
        return new ResolvedProxy(entry, new CreateRequest(name, "uid-" + name, new Placement(zone, machineType, image), ""));
    }

    private static Instance unplaced(String name, InstanceState state) {
        return new Instance("zone/" + name, name, state == InstanceState.RUNNING ? "198.51.100.1" : "", state,
                "uid-" + name, null);
    }
}

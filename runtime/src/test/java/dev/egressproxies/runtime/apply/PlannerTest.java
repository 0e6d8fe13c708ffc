package dev.egressproxies.runtime.apply;

import static org.assertj.core.api.Assertions.assertThat;

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
                Map.of("a", List.of(instance("stopped", InstanceState.STOPPED),
                                instance("running", InstanceState.RUNNING), instance("old", InstanceState.RUNNING)),
                        "b", List.of()));
        assertThat(plan.steps()).extracting(PlanStep::action, PlanStep::entry, PlanStep::name).containsExactly(
                org.assertj.core.groups.Tuple.tuple(PlanStep.Action.CREATE, "a", "new"),
                org.assertj.core.groups.Tuple.tuple(PlanStep.Action.START, "a", "stopped"),
                org.assertj.core.groups.Tuple.tuple(PlanStep.Action.CREATE, "b", "fresh"),
                org.assertj.core.groups.Tuple.tuple(PlanStep.Action.DELETE, "a", "old"));
        assertThat(plan.unchanged()).isEqualTo(1);
        assertThat(plan.steps().get(3).id()).isEqualTo("zone/old");
    }

    @Test
    void provisioningCountsAsPresent() {
        Plan plan = planner.plan(List.of(proxy("a", "booting")),
                Map.of("a", List.of(instance("booting", InstanceState.PROVISIONING))));
        assertThat(plan.isEmpty()).isTrue();
        assertThat(plan.unchanged()).isEqualTo(1);
    }

    @Test
    void onlyTheNamedEntriesAreTouched() {
        Plan plan = planner.plan(List.of(), Map.of("a", List.of(instance("x", InstanceState.RUNNING))));
        assertThat(plan.steps()).extracting(PlanStep::entry).containsOnly("a");
    }

    private static ResolvedProxy proxy(String entry, String name) {
        return new ResolvedProxy(entry, new CreateRequest(name, "uid-" + name, new Placement("", "m", "i"), ""));
    }

    private static Instance instance(String name, InstanceState state) {
        return new Instance("zone/" + name, name, state == InstanceState.RUNNING ? "198.51.100.1" : "", state,
                "uid-" + name, null);
    }
}

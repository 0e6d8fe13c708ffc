package dev.egressproxies.runtime.apply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.ZoneChoice;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The plan's creates without zone go where the backend places them, asked once per entry for all of them. */
class PlanPlacementTest {
    private final List<List<Placement>> asked = new ArrayList<>();

    @Test
    void unplacedCreatesAreAskedTogetherAndShowTheChoiceAndItsReason() {
        Plan plan = new Plan(List.of(
                new PlanStep(PlanStep.Action.CREATE, "lab", "one", "", request("one", "")),
                new PlanStep(PlanStep.Action.CREATE, "lab", "two", "", request("two", "zone-a")),
                new PlanStep(PlanStep.Action.CREATE, "lab", "three", "", request("three", "")),
                new PlanStep(PlanStep.Action.DELETE, "lab", "old", "zone-a/old", null)), 2);

        Plan placed = new PlanPlacement(entry -> placing(), Deadline::none).place(plan);

        assertThat(asked).singleElement().satisfies(placements -> assertThat(placements)
                .extracting(Placement::zone).containsExactly("", ""));
        assertThat(placed.steps()).extracting(step -> step.request() == null ? null
                : step.request().placement().zone()).containsExactly("zone-b", "zone-a", "zone-c", null);
        assertThat(placed.steps()).extracting(PlanStep::placed)
                .containsExactly("because 1", "", "because 2", "");
        assertThat(placed.unchanged()).isEqualTo(2);
    }

    @Test
    void aPlanWhoseZonesAreAllNamedAsksNothing() {
        Plan plan = new Plan(List.of(new PlanStep(PlanStep.Action.CREATE, "lab", "two", "",
                request("two", "zone-a"))), 0);

        assertThat(new PlanPlacement(entry -> placing(), Deadline::none).place(plan)).isSameAs(plan);
        assertThat(asked).isEmpty();
    }

    @Test
    void aBackendThatLeavesTheChoiceToCreateKeepsTheZoneEmpty() {
        Plan plan = new Plan(List.of(new PlanStep(PlanStep.Action.CREATE, "lab", "one", "", request("one", ""))), 0);

        Plan placed = new PlanPlacement(entry -> new RecordingProvider("lab", "zone-a"), Deadline::none).place(plan);

        assertThat(placed.steps().get(0).request().placement().zone()).isEmpty();
        assertThat(placed.steps().get(0).placed()).isEmpty();
    }

    private static CreateRequest request(String name, String zone) {
        return new CreateRequest(name, "uid-" + name, new Placement(zone, "small", "debian-12"), "");
    }

    /** Chooses zone-b, zone-c, ... in turn, with reasons "because 1", "because 2", ... */
    private RecordingProvider placing() {
        return new RecordingProvider("lab", "zone-a", "zone-b", "zone-c").placing(placements -> {
            asked.add(placements);
            List<ZoneChoice> choices = new ArrayList<>();
            for (int index = 0; index < placements.size(); index++) {
                choices.add(new ZoneChoice("zone-" + (char) ('b' + index), "because " + (index + 1)));
            }
            return choices;
        });
    }
}

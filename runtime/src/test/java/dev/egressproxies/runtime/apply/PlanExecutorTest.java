package dev.egressproxies.runtime.apply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.Placement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PlanExecutorTest {
    private final RecordingProvider lab = new RecordingProvider("lab", "zone-a", "zone-b");
    private final PlanExecutor executor = new PlanExecutor(Map.of("lab", lab)::get,
            () -> Deadline.after(Duration.ofSeconds(5)));

    @Test
    void aReplacementDeletesTheOldInstanceThenCreatesTheNewOneAfterCreatesAndBeforeDeletes() {
        List<StepResult> results = executor.execute(new Plan(List.of(create("new", "zone-a"),
                replace("moved", "zone-b", "zone-a"), delete("old", "zone-b")), 0));

        assertThat(lab.calls()).containsExactly("create new@zone-a", "delete zone-b/moved", "create moved@zone-a",
                "delete zone-b/old");
        assertThat(results).allMatch(StepResult::succeeded);
        assertThat(results.get(1).id()).isEqualTo("zone-a/moved");
    }

    @Test
    void theFirstFailedReplacementSkipsTheOtherReplacementsAndTheDeletes() {
        lab.failing("create one@zone-a");
        List<StepResult> results = executor.execute(new Plan(List.of(replace("one", "zone-b", "zone-a"),
                replace("two", "zone-b", "zone-a"), delete("old", "zone-b")), 0));

        assertThat(lab.calls()).containsExactly("delete zone-b/one", "create one@zone-a");
        assertThat(results.get(0).error()).isNotNull();
        assertThat(results.get(0).error().getMessage()).contains("the old instance zone-b/one was deleted")
                .contains("run apply again");
        assertThat(results.subList(1, 3)).allSatisfy(result ->
                assertThat(result.skipped()).isEqualTo("the replace of lab/one failed, so nothing more is replaced or deleted"));
    }

    @Test
    void aFailedCreateDoesNotStopOtherCreatesButSkipsReplacementsAndDeletes() {
        lab.failing("create first@zone-a");
        List<StepResult> results = executor.execute(new Plan(List.of(create("first", "zone-a"),
                create("second", "zone-b"), replace("moved", "zone-b", "zone-a"), delete("old", "zone-b")), 0));

        assertThat(lab.calls()).containsExactly("create first@zone-a", "create second@zone-b");
        assertThat(results).extracting(StepResult::succeeded).containsExactly(false, true, false, false);
        assertThat(results.get(3).skipped()).isEqualTo("the create of lab/first failed, so nothing more is replaced or deleted");
    }

    private static PlanStep create(String name, String zone) {
        return new PlanStep(PlanStep.Action.CREATE, "lab", name, "", request(name, zone));
    }

    private static PlanStep replace(String name, String from, String to) {
        return new PlanStep(PlanStep.Action.REPLACE, "lab", name, from + "/" + name, request(name, to),
                List.of(new Drift.Change("zone", from, to)));
    }

    private static PlanStep delete(String name, String zone) {
        return new PlanStep(PlanStep.Action.DELETE, "lab", name, zone + "/" + name, null);
    }

    private static CreateRequest request(String name, String zone) {
        return new CreateRequest(name, "uid-" + name, new Placement(zone, "small", "debian-12"), "");
    }
}

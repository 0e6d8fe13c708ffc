package dev.egressproxies.runtime.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.runtime.apply.PlanStep;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class DeletionGuardTest {
    private static List<PlanStep> deletes(int count) {
        return IntStream.rangeClosed(1, count)
                .mapToObj(index -> new PlanStep(PlanStep.Action.DELETE, "lab", "p" + index, "zone-a/p" + index, null))
                .toList();
    }

    @Test
    void upToHalfOfTheManagedInstancesGoAhead() {
        DeletionGuard guard = new DeletionGuard(false);
        assertThat(guard.allowed(deletes(2), 4)).hasSize(2);
        assertThat(guard.pending()).isEmpty();
    }

    @Test
    void moreThanHalfIsHeldUntilConfirmed() {
        DeletionGuard guard = new DeletionGuard(false);
        assertThat(guard.allowed(deletes(3), 4)).isEmpty();
        assertThat(guard.pending()).containsExactly("zone-a/p1", "zone-a/p2", "zone-a/p3");

        assertThat(guard.confirm()).hasSize(3);

        assertThat(guard.allowed(deletes(3), 4)).hasSize(3);
    }

    @Test
    void aConfirmationCoversOnlyTheDeletesPendingWhenItWasGiven() {
        DeletionGuard guard = new DeletionGuard(false);
        guard.allowed(deletes(3), 4);
        guard.confirm();

        List<PlanStep> allowed = guard.allowed(deletes(4), 4);

        assertThat(allowed).extracting(PlanStep::id).containsExactly("zone-a/p1", "zone-a/p2", "zone-a/p3");
        assertThat(guard.pending()).containsExactly("zone-a/p4");
    }

    @Test
    void theLastInstanceOfAnEntryIsHeld() {
        DeletionGuard guard = new DeletionGuard(false);
        assertThat(guard.allowed(deletes(1), 1)).isEmpty();
    }

    @Test
    void confirmFirstHoldLetsTheFirstHeldDeletesGoOnce() {
        DeletionGuard guard = new DeletionGuard(true);
        assertThat(guard.allowed(deletes(3), 3)).hasSize(3);
        assertThat(guard.allowed(deletes(4), 4)).hasSize(3);
        assertThat(guard.pending()).containsExactly("zone-a/p4");
    }
}

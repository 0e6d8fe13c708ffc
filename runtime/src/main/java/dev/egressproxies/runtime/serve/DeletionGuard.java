package dev.egressproxies.runtime.serve;

import dev.egressproxies.runtime.apply.PlanStep;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The mass-delete rule of one entry: a pass whose deletes would remove more than half of the
 * entry's managed instances holds them back until an operator confirms them, so a typo in the
 * desired set cannot wipe a fleet. A confirmation covers exactly the deletes pending when it is
 * given; deletes that appear later are judged afresh.
 */
final class DeletionGuard {
    private final Set<String> confirmed = new HashSet<>();
    private List<String> pending = List.of();
    private boolean confirmNextHold;

    /**
     * @param confirmFirstHold whether the first deletes held are confirmed at once (the operator
     *                         restarted with {@code --confirm-deletes} after seeing them pending)
     */
    DeletionGuard(boolean confirmFirstHold) {
        this.confirmNextHold = confirmFirstHold;
    }

    /**
     * Splits a pass's deletes into those that may go ahead and those held back.
     *
     * @param deletes the pass's deletes
     * @param managed how many managed instances the pass saw in the entry
     * @return the deletes that may go ahead; {@link #pending()} names the rest
     */
    synchronized List<PlanStep> allowed(List<PlanStep> deletes, int managed) {
        confirmed.retainAll(deletes.stream().map(PlanStep::id).toList());
        if (deletes.size() * 2 <= managed) {
            pending = List.of();
            return deletes;
        }
        List<PlanStep> allowed = new ArrayList<>();
        List<String> held = new ArrayList<>();
        for (PlanStep delete : deletes) {
            if (confirmed.contains(delete.id())) {
                allowed.add(delete);
            } else {
                held.add(delete.id());
            }
        }
        pending = List.copyOf(held);
        if (confirmNextHold && !held.isEmpty()) {
            confirmNextHold = false;
            confirm();
            return deletes;
        }
        return allowed;
    }

    /** The provider IDs of the deletes held back now. */
    synchronized List<String> pending() {
        return pending;
    }

    /** Confirms the deletes held back now, and returns their provider IDs. */
    synchronized List<String> confirm() {
        List<String> now = pending;
        confirmed.addAll(now);
        pending = List.of();
        return now;
    }
}

package dev.egressproxies.runtime.apply;

import java.util.List;

/**
 * The changes that converge the named provider entries on a desired set, creates and starts
 * before deletes, so replacing one proxy with another never leaves a gap.
 *
 * @param steps     the changes, in the order they are carried out
 * @param unchanged how many desired proxies already exist and run
 */
public record Plan(List<PlanStep> steps, int unchanged) {
    /** Copies the step list. */
    public Plan {
        steps = List.copyOf(steps);
    }

    /** Whether there is nothing to do. */
    public boolean isEmpty() {
        return steps.isEmpty();
    }
}

package dev.egressproxies.runtime.apply;

import java.util.List;

/**
 * The changes that converge the named provider entries on a desired set, in the order they are
 * carried out: creates and starts, then replacements, then deletes (see {@link PlanExecutor}).
 *
 * @param steps     the changes, in the order they are carried out
 * @param unchanged how many desired proxies already exist as desired
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

    /** How many steps do this. */
    public long count(PlanStep.Action action) {
        return steps.stream().filter(step -> step.action() == action).count();
    }
}

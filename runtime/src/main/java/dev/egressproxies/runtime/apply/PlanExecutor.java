package dev.egressproxies.runtime.apply;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.ProviderException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Carries out a {@link Plan}, step by step. Creates and starts go first; if any of them fails the
 * deletes are skipped, because deleting the old proxies while their replacements are missing would
 * leave nothing serving. A failed step does not stop the other creates: each is independent.
 */
public final class PlanExecutor {
    private final Function<String, Provider> providers;
    private final Supplier<Deadline> deadlines;

    /**
     * Creates an executor.
     *
     * @param providers the provider of each entry
     * @param deadlines a fresh deadline per provider call
     */
    public PlanExecutor(Function<String, Provider> providers, Supplier<Deadline> deadlines) {
        this.providers = providers;
        this.deadlines = deadlines;
    }

    /** Carries out every step and reports each one's outcome, in plan order. */
    public List<StepResult> execute(Plan plan) {
        List<StepResult> results = new ArrayList<>();
        boolean creationFailed = false;
        for (PlanStep step : plan.steps()) {
            if (step.action() == PlanStep.Action.DELETE && creationFailed) {
                results.add(new StepResult(step, step.id(), null, true));
                continue;
            }
            try {
                results.add(new StepResult(step, run(step), null, false));
            } catch (ProviderException e) {
                creationFailed |= step.action() != PlanStep.Action.DELETE;
                results.add(new StepResult(step, step.id(), e, false));
            }
            if (Thread.currentThread().isInterrupted()) {
                break;
            }
        }
        return results;
    }

    private String run(PlanStep step) {
        Provider provider = providers.apply(step.entry());
        if (step.action() == PlanStep.Action.DELETE) {
            provider.delete(step.id(), deadlines.get());
            return step.id();
        }
        return provider.create(step.request(), deadlines.get());
    }
}

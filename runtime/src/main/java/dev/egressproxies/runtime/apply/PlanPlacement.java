package dev.egressproxies.runtime.apply;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.ZoneChoice;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Puts a plan's creates and replacements whose desired proxy names no zone in the zones their
 * entry's backend chooses ({@link Provider#place}), one call per entry for all of them together,
 * so the plan shows each choice and why before anything changes, and they spread as a whole.
 */
public final class PlanPlacement {
    private final Function<String, Provider> providers;
    private final Supplier<Deadline> deadlines;

    /** Asks the providers by entry name, each call within a fresh deadline. */
    public PlanPlacement(Function<String, Provider> providers, Supplier<Deadline> deadlines) {
        this.providers = providers;
        this.deadlines = deadlines;
    }

    /** The plan with the zones chosen; the same plan when every step names its zone. */
    public Plan place(Plan plan) {
        Map<String, List<Integer>> unplaced = new LinkedHashMap<>();
        for (int index = 0; index < plan.steps().size(); index++) {
            PlanStep step = plan.steps().get(index);
            boolean creates = step.action() == PlanStep.Action.CREATE || step.action() == PlanStep.Action.REPLACE;
            if (creates && step.request().placement().zone().isEmpty()) {
                unplaced.computeIfAbsent(step.entry(), entry -> new ArrayList<>()).add(index);
            }
        }
        if (unplaced.isEmpty()) {
            return plan;
        }
        List<PlanStep> steps = new ArrayList<>(plan.steps());
        unplaced.forEach((entry, indexes) -> {
            List<Placement> placements = indexes.stream().map(index -> steps.get(index).request().placement())
                    .toList();
            List<ZoneChoice> choices = providers.apply(entry).place(placements, deadlines.get());
            for (int i = 0; i < indexes.size(); i++) {
                ZoneChoice choice = choices.get(i);
                if (!choice.zone().isEmpty()) {
                    steps.set(indexes.get(i), steps.get(indexes.get(i)).placedIn(choice));
                }
            }
        });
        return new Plan(steps, plan.unchanged());
    }
}

package dev.egressproxies.runtime.apply;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.ProviderException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Carries out a {@link Plan} in its order: creates and starts, then replacements, then deletes.
 *
 * <ul>
 *   <li>Creates and starts are independent: a failed one does not stop the others.</li>
 *   <li>A replacement deletes the old instance and then creates the new one, because a name is one
 *       instance per entry: the new one cannot exist while the old one does. Replacements run one
 *       at a time and only while nothing has failed, so a backend that fails cannot take every
 *       proxy down; the first failure skips the rest.</li>
 *   <li>Deletes run only when nothing failed before them: deleting instances while wanted ones
 *       are missing would leave nothing serving.</li>
 * </ul>
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

    /** Carries out the steps and reports each one's outcome, in plan order. */
    public List<StepResult> execute(Plan plan) {
        List<StepResult> results = new ArrayList<>();
        String failed = null;
        for (PlanStep step : plan.steps()) {
            boolean independent = step.action() == PlanStep.Action.CREATE || step.action() == PlanStep.Action.START;
            if (failed != null && !independent) {
                results.add(new StepResult(step, step.id(), null, failed));
                continue;
            }
            if (Thread.currentThread().isInterrupted()) {
                results.add(new StepResult(step, step.id(), null, "interrupted"));
                continue;
            }
            try {
                results.add(new StepResult(step, run(step), null, null));
            } catch (ProviderException e) {
                results.add(new StepResult(step, step.id(), e, null));
                if (failed == null) {
                    failed = "the " + step.action().name().toLowerCase(Locale.ROOT) + " of " + step.entry() + "/"
                            + step.name() + " failed, so nothing more is replaced or deleted";
                }
            }
        }
        return results;
    }

    /**
     * Carries out one step alone, as {@code egressctl serve} does for each proxy on its own, and
     * returns the provider ID it ended with (for a create or replacement, the new one).
     *
     * @throws ProviderException when the step failed; a replacement whose create failed says that
     *                           the old instance is gone
     */
    public String run(PlanStep step) {
        Provider provider = providers.apply(step.entry());
        return switch (step.action()) {
            case CREATE, START -> provider.create(step.request(), deadlines.get());
            case DELETE -> {
                provider.delete(step.id(), deadlines.get());
                yield step.id();
            }
            case REPLACE -> replace(provider, step);
        };
    }

    private String replace(Provider provider, PlanStep step) {
        provider.delete(step.id(), deadlines.get());
        try {
            return provider.create(step.request(), deadlines.get());
        } catch (ProviderException e) {
            // The old instance is gone: say so, or the operator would look for it.
            throw new ProviderException(e.kind(), Operation.CREATE, e.entry(), e.instanceId(), "the old instance "
                    + step.id() + " was deleted, but creating its replacement failed: " + e.detail()
                    + (e.kind() == ErrorKind.PERMANENT ? "" : "; run apply again to create it"), e);
        }
    }
}

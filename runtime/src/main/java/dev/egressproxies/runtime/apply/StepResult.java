package dev.egressproxies.runtime.apply;

import dev.egressproxies.api.ProviderException;

/**
 * What happened to one {@link PlanStep} when the plan was carried out.
 *
 * @param step    the step
 * @param id      the provider ID it ended with (for a create or replacement, the new one)
 * @param error   the failure, or null when it succeeded; null also when it was {@code skipped}
 * @param skipped why it was not tried (replacements and deletes are skipped after a failure), or
 *                null when it was tried
 */
public record StepResult(PlanStep step, String id, ProviderException error, String skipped) {
    /** Whether the step was carried out successfully. */
    public boolean succeeded() {
        return error == null && skipped == null;
    }
}

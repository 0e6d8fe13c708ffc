package dev.egressproxies.runtime.apply;

import dev.egressproxies.api.ProviderException;

/**
 * What happened to one {@link PlanStep} when the plan was carried out.
 *
 * @param step  the step
 * @param id    the provider ID it ended with (for a create, the new one)
 * @param error the failure, or null when it succeeded; null also when it was {@code skipped}
 * @param skipped whether it was not tried (deletes are skipped after a failed create or start)
 */
public record StepResult(PlanStep step, String id, ProviderException error, boolean skipped) {
    /** Whether the step was carried out successfully. */
    public boolean succeeded() {
        return error == null && !skipped;
    }
}

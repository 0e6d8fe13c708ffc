package dev.egressproxies.runtime.apply;

import dev.egressproxies.api.CreateRequest;

/**
 * One change that {@code apply} makes to converge on the desired set.
 *
 * @param action   what to do
 * @param entry    the provider entry it happens in
 * @param name     the instance name
 * @param id       the provider ID of the existing instance, or empty for a create
 * @param request  what to create (or start), null for a delete
 */
public record PlanStep(Action action, String entry, String name, String id, CreateRequest request) {

    /** The kinds of change. */
    public enum Action {
        /** The proxy does not exist: create it. */
        CREATE,
        /** The proxy exists but is stopped: start it (create is idempotent and starts it). */
        START,
        /** A managed instance that is not in the set: delete it. */
        DELETE
    }
}

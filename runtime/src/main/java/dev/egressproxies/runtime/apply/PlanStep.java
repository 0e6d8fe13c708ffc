package dev.egressproxies.runtime.apply;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.ZoneChoice;
import java.util.List;

/**
 * One change that {@code apply} makes to converge on the desired set.
 *
 * @param action  what to do
 * @param entry   the provider entry it happens in
 * @param name    the instance name
 * @param id      the provider ID of the existing instance, or empty for a create
 * @param request what to create (or start), null for a delete
 * @param changes for a replacement, what differs between the existing instance and the request;
 *                empty otherwise
 * @param placed  why the backend chose the request's zone, for a proxy whose desired set names none;
 *                empty otherwise
 */
public record PlanStep(Action action, String entry, String name, String id, CreateRequest request,
                       List<Drift.Change> changes, String placed) {

    /** Copies the change list. */
    public PlanStep {
        changes = changes == null ? List.of() : List.copyOf(changes);
        placed = placed == null ? "" : placed;
    }

    /** A step whose zone is as the set asks. */
    public PlanStep(Action action, String entry, String name, String id, CreateRequest request,
                    List<Drift.Change> changes) {
        this(action, entry, name, id, request, changes, "");
    }

    /** A step that changes no placement: a create, start or delete. */
    public PlanStep(Action action, String entry, String name, String id, CreateRequest request) {
        this(action, entry, name, id, request, List.of());
    }

    /** This step with its request in the zone the backend chose, and why. */
    public PlanStep placedIn(ZoneChoice choice) {
        Placement asked = request.placement();
        CreateRequest placedRequest = new CreateRequest(request.name(), request.uid(),
                new Placement(choice.zone(), asked.machineType(), asked.image()), request.cloudInit());
        return new PlanStep(action, entry, name, id, placedRequest, changes, choice.reason());
    }

    /** The kinds of change. */
    public enum Action {
        /** The proxy does not exist: create it. */
        CREATE,
        /** The proxy exists but is stopped: start it (create is idempotent and starts it). */
        START,
        /**
         * The proxy exists with another zone, machine type, image or user-data: delete it, then
         * create it as asked (a name is one instance per entry, so the new one cannot come first).
         */
        REPLACE,
        /** A managed instance that is not in the set (or a second instance of a listed name): delete it. */
        DELETE
    }
}

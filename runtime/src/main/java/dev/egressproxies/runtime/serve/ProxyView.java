package dev.egressproxies.runtime.serve;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Instance;
import dev.egressproxies.runtime.apply.PlanStep;
import java.time.Instant;

/**
 * One proxy as {@code serve} sees it: what the desired set asks for, what was last observed, and
 * how its reconciliation goes. Immutable; each change makes a new view.
 *
 * @param entry         the provider entry
 * @param name          the instance name
 * @param desired       what the desired set asks for, or null for a managed instance it does not list
 * @param observed      the instance as last listed, or null when none was seen
 * @param state         what is known of the instance
 * @param action        the last or current action, or null when none was needed
 * @param outcome       how the last reconciliation ended
 * @param error         the last failure's message, or null
 * @param errorKind     the last failure's kind, or null
 * @param attempts      consecutive failed attempts (0 after a success)
 * @param lastReconcile when a pass or an action last looked at this proxy, or null
 * @param nextAttempt   when a failed proxy may be tried again, or null
 */
public record ProxyView(String entry, String name, CreateRequest desired, Instance observed, ProxyState state,
                        PlanStep.Action action, Outcome outcome, String error, ErrorKind errorKind, int attempts,
                        Instant lastReconcile, Instant nextAttempt) {

    /** A proxy not yet looked at. */
    static ProxyView fresh(String entry, String name) {
        return new ProxyView(entry, name, null, null, ProxyState.UNKNOWN, null, Outcome.OK, null, null, 0, null, null);
    }

    /** The key of a proxy in an entry: {@code entry/name}. */
    static String key(String entry, String name) {
        return entry + "/" + name;
    }

    /** This view's key. */
    String key() {
        return key(entry, name);
    }

    /** The provider ID of the observed instance, or {@code ""}. */
    public String id() {
        return observed == null ? "" : observed.id();
    }

    ProxyView seen(CreateRequest wanted, Instance instance, ProxyState known, Instant at) {
        return new ProxyView(entry, name, wanted, instance, known, action, outcome, error, errorKind, attempts, at,
                nextAttempt);
    }

    ProxyView settled(Outcome settled) {
        return new ProxyView(entry, name, desired, observed, state, action, settled, null, null, 0, lastReconcile, null);
    }

    ProxyView waiting(PlanStep.Action pending, Outcome why, String reason) {
        return new ProxyView(entry, name, desired, observed, state, pending, why, reason, null, attempts, lastReconcile,
                nextAttempt);
    }

    /** This view with another time of the last look. */
    ProxyView withLastReconcile(Instant at) {
        return new ProxyView(entry, name, desired, observed, state, action, outcome, error, errorKind, attempts, at,
                nextAttempt);
    }

    ProxyView started(PlanStep.Action started, Instant at) {
        return new ProxyView(entry, name, desired, observed, state, started, Outcome.IN_FLIGHT, error, errorKind,
                attempts, at, nextAttempt);
    }

    ProxyView succeeded(Instant at) {
        return new ProxyView(entry, name, desired, observed, state, action, Outcome.OK, null, null, 0, at, null);
    }

    ProxyView failed(String message, ErrorKind kind, Instant at, Instant retryAt) {
        return new ProxyView(entry, name, desired, observed, state, action, Outcome.FAILED, message, kind,
                attempts + 1, at, retryAt);
    }

    ProxyView interrupted(Instant at) {
        return new ProxyView(entry, name, desired, observed, state, action, Outcome.INTERRUPTED, "interrupted by a"
                + " shutdown; the next serve repairs what it left", null, attempts, at, null);
    }

    /** Whether a failed proxy must still wait before its next attempt. */
    boolean backingOff(Instant now) {
        return nextAttempt != null && now.isBefore(nextAttempt);
    }
}

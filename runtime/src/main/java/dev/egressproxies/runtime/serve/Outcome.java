package dev.egressproxies.runtime.serve;

import java.util.Locale;

/** How a proxy's last reconciliation ended, as the API and the action log show it. */
public enum Outcome {
    /** As desired, or the last action succeeded. */
    OK,
    /** An action runs now. */
    IN_FLIGHT,
    /** The last action failed; the next attempt waits for its backoff. */
    FAILED,
    /** Nothing may be done until a zone answers again. */
    WAITING,
    /** A delete held back by the mass-delete rule until an operator confirms it. */
    HELD,
    /** The last action was interrupted by a shutdown. */
    INTERRUPTED;

    /** The name the API and logs use: lowercase, with a hyphen. */
    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}

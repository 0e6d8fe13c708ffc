package dev.egressproxies.api;

/**
 * The life-cycle state of an instance as the contract reports it.
 */
public enum InstanceState {
    /** Booting, running but without an address yet, or in a state the backend cannot tell. */
    PROVISIONING,
    /** Active and reachable at a known address; never reported with an empty IP. */
    RUNNING,
    /** Anything else: shut off, paused, crashed, suspended. */
    STOPPED;

    /**
     * Maps what a backend observed to a state, so every backend applies the same rule.
     *
     * @param active whether the instance is running on its host
     * @param ip     the address found for it, or {@code ""}
     */
    public static InstanceState of(boolean active, String ip) {
        if (!active) {
            return STOPPED;
        }
        return ip == null || ip.isEmpty() ? PROVISIONING : RUNNING;
    }
}

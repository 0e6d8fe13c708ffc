package dev.egressproxies.api;

/**
 * The life-cycle state of an instance as the contract reports it.
 *
 * @since 1.0.0
 */
public enum InstanceState {
    /**
     * Booting, running but without an address yet, or in a state the backend cannot tell.
     *
     * @since 1.0.0
     */
    PROVISIONING,
    /**
     * Active and reachable at a known address; never reported with an empty IP.
     *
     * @since 1.0.0
     */
    RUNNING,
    /**
     * Anything else: shut off, paused, crashed, suspended.
     *
     * @since 1.0.0
     */
    STOPPED;

    /**
     * Maps what a backend observed to a state, so every backend applies the same rule.
     *
     * @param active whether the instance is running on its host
     * @param ip     the address found for it, or {@code ""}
     * @since 1.0.0
     */
    public static InstanceState of(boolean active, String ip) {
        if (!active) {
            return STOPPED;
        }
        return ip == null || ip.isEmpty() ? PROVISIONING : RUNNING;
    }
}

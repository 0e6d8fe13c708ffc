package dev.egressproxies.runtime.serve;

import dev.egressproxies.api.InstanceState;

/** What {@code serve} knows of a proxy's instance at its last look. */
public enum ProxyState {
    /** Active, with an address. */
    RUNNING,
    /** Booting, or active without an address yet. */
    PROVISIONING,
    /** Defined but not running. */
    STOPPED,
    /** No instance of this name exists in any zone of the entry. */
    ABSENT,
    /** A zone of the entry does not answer, so whether and how the instance exists is not known. */
    UNKNOWN;

    /** The state of an observed instance. */
    static ProxyState of(InstanceState state) {
        return switch (state) {
            case RUNNING -> RUNNING;
            case PROVISIONING -> PROVISIONING;
            case STOPPED -> STOPPED;
        };
    }
}

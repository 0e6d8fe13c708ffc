package dev.egressproxies.kvm.common.libvirt;

/** The states libvirt reports for a domain ({@code virDomainState}). */
public enum DomainState {
    /** libvirt could not tell. */
    NO_STATE,
    /** Executing. */
    RUNNING,
    /** Blocked on a resource; still up from the outside. */
    BLOCKED,
    /** Paused by the user or by libvirt. */
    PAUSED,
    /** Being shut down. */
    SHUTDOWN,
    /** Shut off. */
    SHUTOFF,
    /** Crashed. */
    CRASHED,
    /** Suspended by guest power management. */
    PM_SUSPENDED;

    /** Whether the guest is up: executing, or blocked on the hypervisor. */
    public boolean isActive() {
        return this == RUNNING || this == BLOCKED;
    }
}

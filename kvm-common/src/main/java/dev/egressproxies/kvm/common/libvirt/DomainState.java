package dev.egressproxies.kvm.common.libvirt;

/** The states libvirt reports for a domain ({@code virDomainState}). */
public enum DomainState {
    NO_STATE, RUNNING, BLOCKED, PAUSED, SHUTDOWN, SHUTOFF, CRASHED, PM_SUSPENDED;

    /** Whether the guest is up: executing, or blocked on the hypervisor. */
    public boolean isActive() {
        return this == RUNNING || this == BLOCKED;
    }
}

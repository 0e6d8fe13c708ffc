package dev.egressproxies.kvm.common;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;

/**
 * One provider call in progress: what every step needs to check the deadline and to build an error
 * that says where it failed. {@code instanceId} is the provider ID, the name while the ID is not
 * known, or {@code ""}.
 */
public record Call(String entry, Operation operation, String instanceId, Deadline deadline) {

    /** Throws the contract's TRANSIENT error when the deadline passed or the thread was interrupted. */
    public void checkDeadline() {
        deadline.check(operation, entry, instanceId);
    }

    /** An error of this call. */
    public ProviderException failure(ErrorKind kind, String detail, Throwable cause) {
        return new ProviderException(kind, operation, entry, instanceId, detail, cause);
    }

    /** A PERMANENT error of this call: the request or the configuration must change. */
    public ProviderException permanent(String detail) {
        return failure(ErrorKind.PERMANENT, detail, null);
    }

    /** A TRANSIENT error of this call: a retry can succeed. */
    public ProviderException transientFailure(String detail, Throwable cause) {
        return failure(ErrorKind.TRANSIENT, detail, cause);
    }

    /** The TRANSIENT error for a deadline that passed while waiting on {@code what}. */
    public ProviderException deadlineExceeded(String what, Throwable cause) {
        return failure(ErrorKind.TRANSIENT, "deadline exceeded while " + what
                + "; retry with a longer deadline if this repeats", cause);
    }

    /** The same call with another deadline: a step's budget, or a fresh one for cleaning up. */
    public Call withDeadline(Deadline other) {
        return new Call(entry, operation, instanceId, other);
    }

    /** The TRANSIENT error for an interrupted wait; sets the thread's interrupt flag again. */
    public ProviderException interrupted(InterruptedException cause) {
        return ProviderException.interrupted(operation, entry, instanceId, cause);
    }
}

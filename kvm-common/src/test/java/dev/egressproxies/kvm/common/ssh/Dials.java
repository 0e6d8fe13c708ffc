package dev.egressproxies.kvm.common.ssh;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.Operation;
import dev.egressproxies.kvm.common.Call;

/** The call an SSH test dials for: its failures are that call's errors. */
final class Dials {
    /** The entry every test dial belongs to, as the errors name it. */
    static final String ENTRY = "ssh-test";

    private Dials() {
    }

    /** A dial of a listManaged call without a deadline of its own. */
    static Call dial() {
        return new Call(ENTRY, Operation.LIST_MANAGED, "", Deadline.none());
    }
}

package dev.egressproxies.fake;

import dev.egressproxies.api.Instance;
import dev.egressproxies.api.InstanceState;
import dev.egressproxies.api.Placement;
import dev.egressproxies.fake.state.StoredInstance;
import java.time.Clock;
import java.time.Duration;

/**
 * The rule that turns a stored instance into what get reports: STOPPED when stopped, PROVISIONING
 * (no IP) until the boot delay has passed since it was last started, RUNNING with its IP after;
 * with the placement and user-data digest it was created with.
 */
final class Lifecycle {
    private final Clock clock;
    private final Duration bootDelay;

    Lifecycle(Clock clock, Duration bootDelay) {
        this.clock = clock;
        this.bootDelay = bootDelay;
    }

    /** What the contract reports for {@code stored} now, by the platform's clock. */
    Instance describe(StoredInstance stored) {
        InstanceState state;
        if (stored.stopped()) {
            state = InstanceState.STOPPED;
        } else if (clock.instant().isBefore(stored.startedAt().plus(bootDelay))) {
            state = InstanceState.PROVISIONING;
        } else {
            state = InstanceState.RUNNING;
        }
        // The address is held while the instance exists but only shown once it has booted,
        // as a real guest only answers on it then.
        String ip = state == InstanceState.RUNNING ? stored.ip() : "";
        return new Instance(stored.id(), stored.name(), ip, state, stored.uid(), stored.createdAt(),
                new Placement(stored.zone(), stored.machineType(), stored.image()), stored.userDataSha256());
    }
}

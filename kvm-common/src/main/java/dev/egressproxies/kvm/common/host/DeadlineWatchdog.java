package dev.egressproxies.kvm.common.host;

import dev.egressproxies.api.Deadline;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Runs an action when a deadline passes, unless disarmed first. */
final class DeadlineWatchdog {
    private static final int ARMED = 0;
    private static final int DISARMED = 1;
    private static final int FIRED = 2;

    private final AtomicInteger state = new AtomicInteger(ARMED);
    private final Runnable action;

    private DeadlineWatchdog(Runnable action) {
        this.action = action;
    }

    /** Arms a watchdog that runs {@code action} when {@code deadline} passes; never fires for an unbounded one. */
    static DeadlineWatchdog arm(Deadline deadline, Runnable action) {
        DeadlineWatchdog watchdog = new DeadlineWatchdog(action);
        if (deadline.isBounded()) {
            // Runs on the JDK's delay scheduler thread itself: the actions are quick closes.
            CompletableFuture.delayedExecutor(deadline.remaining().toNanos(), TimeUnit.NANOSECONDS, Runnable::run)
                    .execute(watchdog::fire);
        }
        return watchdog;
    }

    /** Stops the watchdog; false when it fired already (the action ran or is running). */
    boolean disarm() {
        return state.compareAndSet(ARMED, DISARMED) || state.get() == DISARMED;
    }

    /** Whether the deadline passed and the action ran. */
    boolean fired() {
        return state.get() == FIRED;
    }

    private void fire() {
        if (state.compareAndSet(ARMED, FIRED)) {
            action.run();
        }
    }
}

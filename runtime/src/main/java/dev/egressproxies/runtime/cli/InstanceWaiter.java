package dev.egressproxies.runtime.cli;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.InstanceState;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.runtime.output.QualifiedId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * Polls instances until each is where it was asked to be (RUNNING with an address, or gone), or a
 * time limit passes. Polls come quickly at first and then further apart, as a boot takes seconds
 * to minutes; each poll goes through the entry's one provider, so a KVM entry keeps one SSH link
 * per host for the whole wait.
 */
final class InstanceWaiter {
    /** The first pause between two polls. */
    static final Duration FIRST_PAUSE = Duration.ofMillis(250);
    /** The longest pause: a boot that takes minutes is still noticed within seconds. */
    static final Duration LONGEST_PAUSE = Duration.ofSeconds(5);

    /** What the instances should become. */
    enum Goal {
        /** RUNNING, with an address. */
        RUNNING,
        /** Gone: get reports NOT_FOUND. */
        DELETED;

        /** As messages and options name it. */
        String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** Pauses between polls; tests replace it with one that advances a fake clock. */
    interface Sleeper {
        /** Sleeps for {@code pause}. */
        void sleep(Duration pause) throws InterruptedException;
    }

    /**
     * How a wait ended.
     *
     * @param reached   each instance reached, in the order asked, with what the last poll saw ({@code
     *                  null} for one that is gone); complete when {@link #missing()} and {@link #unknown()}
     *                  are empty
     * @param missing   for a wait that timed out: each instance not there yet, and what it still lacks
     * @param unknown   for a wait for running: the instances that do not exist, with the provider's word
     */
    record Outcome(Map<QualifiedId, Instance> reached, Map<QualifiedId, String> missing,
                   Map<QualifiedId, ProviderException> unknown) {
        /** Whether every instance is there. */
        boolean complete() {
            return missing.isEmpty() && unknown.isEmpty();
        }
    }

    private final Function<String, Provider> providers;
    private final LongSupplier nanoTime;
    private final Sleeper sleeper;

    /**
     * Creates a waiter.
     *
     * @param providers the provider of an entry name (the session's: built once, reused by every poll)
     * @param nanoTime  the monotonic clock
     * @param sleeper   pauses between polls
     */
    InstanceWaiter(Function<String, Provider> providers, LongSupplier nanoTime, Sleeper sleeper) {
        this.providers = providers;
        this.nanoTime = nanoTime;
        this.sleeper = sleeper;
    }

    /**
     * Waits until every instance of {@code ids} has reached {@code goal}, or {@code timeout} has passed.
     * An instance that does not exist ends a wait for running at once (it cannot start by itself); a
     * TRANSIENT failure of a poll (a lost link, a busy host) is retried until the time is up.
     *
     * @throws ProviderException    for a failure that retrying cannot help (PERMANENT, quota)
     * @throws InterruptedException when interrupted (Ctrl-C) between polls
     */
    Outcome await(List<QualifiedId> ids, Goal goal, Duration timeout) throws InterruptedException {
        long deadline = nanoTime.getAsLong() + timeout.toNanos();
        Map<QualifiedId, String> pending = new LinkedHashMap<>();
        ids.forEach(id -> pending.put(id, "not polled yet"));
        Map<QualifiedId, Instance> reached = new LinkedHashMap<>();
        Map<QualifiedId, ProviderException> unknown = new LinkedHashMap<>();
        Duration pause = FIRST_PAUSE;
        while (true) {
            for (QualifiedId id : new ArrayList<>(pending.keySet())) {
                Duration left = Duration.ofNanos(Math.max(0, deadline - nanoTime.getAsLong()));
                // Every poll may use what is left of the wait, but at least a moment, so the first one
                // of a short wait is a real look rather than an expired deadline.
                Deadline call = Deadline.after(left.compareTo(FIRST_PAUSE) < 0 ? FIRST_PAUSE : left);
                Optional<String> lack;
                try {
                    Instance instance = providers.apply(id.entry()).get(id.providerId(), call);
                    lack = lack(instance, goal);
                    if (lack.isEmpty()) {
                        reached.put(id, instance);
                    }
                } catch (ProviderException failure) {
                    if (failure.kind() == ErrorKind.NOT_FOUND) {
                        if (goal == Goal.DELETED) {
                            reached.put(id, null);
                            lack = Optional.empty();
                        } else {
                            unknown.put(id, failure);
                            lack = Optional.empty();
                        }
                    } else if (failure.kind() == ErrorKind.TRANSIENT) {
                        lack = Optional.of("its last poll failed: " + failure.getMessage());
                    } else {
                        throw failure;
                    }
                }
                if (lack.isEmpty()) {
                    pending.remove(id);
                } else {
                    pending.put(id, lack.get());
                }
            }
            if (!unknown.isEmpty()) {
                return new Outcome(ordered(ids, reached), ordered(ids, pending), unknown);
            }
            if (pending.isEmpty()) {
                return new Outcome(ordered(ids, reached), Map.of(), Map.of());
            }
            long left = deadline - nanoTime.getAsLong();
            if (left <= 0) {
                return new Outcome(ordered(ids, reached), ordered(ids, pending), Map.of());
            }
            sleeper.sleep(pause.compareTo(Duration.ofNanos(left)) > 0 ? Duration.ofNanos(left) : pause);
            pause = next(pause);
        }
    }

    /** The pause after {@code pause}: half as long again, up to {@link #LONGEST_PAUSE}. */
    static Duration next(Duration pause) {
        Duration longer = pause.plus(pause.dividedBy(2));
        return longer.compareTo(LONGEST_PAUSE) > 0 ? LONGEST_PAUSE : longer;
    }

    /** What {@code instance} still lacks to have reached {@code goal}; empty when it has. */
    static Optional<String> lack(Instance instance, Goal goal) {
        if (goal == Goal.DELETED) {
            return Optional.of("it still exists (" + instance.state() + ")");
        }
        if (instance.state() == InstanceState.RUNNING && !instance.ip().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(switch (instance.state()) {
            case PROVISIONING -> "it is PROVISIONING, without an address yet";
            case STOPPED -> "it is STOPPED (egressctl create with its name starts it)";
            case RUNNING -> "it is RUNNING without an address";
        });
    }

    private static <V> Map<QualifiedId, V> ordered(List<QualifiedId> ids, Map<QualifiedId, V> values) {
        Map<QualifiedId, V> result = new LinkedHashMap<>();
        ids.stream().filter(values::containsKey).forEach(id -> result.put(id, values.get(id)));
        return result;
    }
}

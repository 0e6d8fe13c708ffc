package dev.egressproxies.fake;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/**
 * The faults a {@link FakeProvider} injects into its operations, changeable by tests while the
 * provider is in use; safe for concurrent use.
 *
 * <p>Each operation (create, get, delete, listManaged) has its own faults. A call first hangs
 * (when {@link #hang} was set) until its deadline passes or its thread is interrupted, then waits
 * the {@link #latency}, then fails with the planned error, if any. Calls count towards
 * {@link #failNext} and {@link #failAfter} when they start. Setting an error replaces the
 * operation's previous error plan; latency and hang stay until changed or {@linkplain #clear
 * cleared}. A provider built from configuration starts with the entry's {@code faults}.
 *
 * <p>Besides faults per operation, a zone can be made {@linkplain #makeZoneUnreadable unreadable},
 * as a host that stopped answering: calls that must read it fail TRANSIENT, naming it.
 */
public final class FaultInjector {
    /** The operations faults can be injected into. */
    public static final List<Operation> OPERATIONS =
            List.of(Operation.CREATE, Operation.GET, Operation.DELETE, Operation.LIST_MANAGED);

    /** Guarded by {@code this}; an operation without an entry has no faults. */
    private final Map<Operation, OperationFaults> faults = new EnumMap<>(Operation.class);
    /** Guarded by {@code this}. */
    private final Set<String> unreadableZones = new TreeSet<>();

    /** Creates an injector that injects nothing. */
    public FaultInjector() {
    }

    /** Makes the next call of {@code operation} fail with {@code kind}, and later calls succeed. */
    public synchronized void failNext(Operation operation, ErrorKind kind) {
        update(operation, current -> current.failing(Objects.requireNonNull(kind, "kind"), 0, 1));
    }

    /** Makes every call of {@code operation} fail with {@code kind} until cleared. */
    public synchronized void failAlways(Operation operation, ErrorKind kind) {
        update(operation, current -> current.failing(Objects.requireNonNull(kind, "kind"), 0, OperationFaults.UNLIMITED));
    }

    /**
     * Lets the next {@code successfulCalls} calls of {@code operation} succeed, then makes every
     * later call fail with {@code kind} until cleared.
     */
    public synchronized void failAfter(Operation operation, int successfulCalls, ErrorKind kind) {
        if (successfulCalls < 0) {
            throw new IllegalArgumentException("successfulCalls is " + successfulCalls + ": use 0 or more");
        }
        update(operation, current -> current.failing(Objects.requireNonNull(kind, "kind"), successfulCalls,
                OperationFaults.UNLIMITED));
    }

    /** Makes every call of {@code operation} wait {@code latency} first; zero removes the latency. */
    public synchronized void latency(Operation operation, Duration latency) {
        if (latency.isNegative()) {
            throw new IllegalArgumentException("latency is negative (" + latency + "): use zero or more");
        }
        update(operation, current -> current.withLatency(latency));
    }

    /**
     * Makes every call of {@code operation} block until its deadline passes or its thread is
     * interrupted, then fail TRANSIENT as the contract demands; lasts until cleared.
     */
    public synchronized void hang(Operation operation) {
        update(operation, OperationFaults::hanging);
    }

    /** Removes every fault of {@code operation}. */
    public synchronized void clear(Operation operation) {
        faults.remove(supported(operation));
    }

    /**
     * Makes {@code zone} unreadable until cleared, as a host that stopped answering: listManaged
     * fails, get and delete of its instances fail, and so does every create (which cannot prove
     * its name free in the other zones without reading them), all TRANSIENT and naming the zone.
     */
    public synchronized void makeZoneUnreadable(String zone) {
        unreadableZones.add(Objects.requireNonNull(zone, "zone"));
    }

    /** Removes every fault of every operation, and makes every zone readable again. */
    public synchronized void clear() {
        faults.clear();
        unreadableZones.clear();
    }

    /** The zones made unreadable, in name order. */
    synchronized List<String> unreadableZones() {
        return List.copyOf(unreadableZones);
    }

    /** Sets the faults that an entry's configuration gives {@code operation}. */
    synchronized void configure(Operation operation, FaultConfig config) {
        OperationFaults configured = OperationFaults.NONE.withLatency(config.latency());
        if (config.hang()) {
            configured = configured.hanging();
        }
        if (config.kind() != null) {
            configured = configured.failing(config.kind(), config.failAfter(), OperationFaults.UNLIMITED);
        }
        faults.put(supported(operation), configured);
    }

    /** Decides what happens to the call of {@code operation} that is starting now, and counts it. */
    synchronized FaultAction next(Operation operation) {
        OperationFaults current = faults.get(operation);
        if (current == null) {
            return FaultAction.NONE;
        }
        faults.put(operation, current.afterCall());
        return new FaultAction(current.hang(), current.latency(), current.errorForThisCall());
    }

    private void update(Operation operation, UnaryOperator<OperationFaults> change) {
        faults.put(supported(operation), change.apply(faults.getOrDefault(operation, OperationFaults.NONE)));
    }

    private static Operation supported(Operation operation) {
        if (!OPERATIONS.contains(Objects.requireNonNull(operation, "operation"))) {
            throw new IllegalArgumentException("faults cannot be injected into " + operation + ": use one of "
                    + OPERATIONS.stream().map(Operation::displayName).collect(Collectors.joining(", ")));
        }
        return operation;
    }

    /**
     * The faults of one operation, immutable.
     *
     * @param hang            whether calls hang until their deadline
     * @param latency         how long calls wait first
     * @param kind            the error of failing calls, or {@code null}
     * @param successesLeft   how many calls succeed before failures start
     * @param failuresLeft    how many calls fail after that, or {@link #UNLIMITED}
     */
    private record OperationFaults(boolean hang, Duration latency, ErrorKind kind, int successesLeft,
                                   int failuresLeft) {
        static final int UNLIMITED = -1;
        static final OperationFaults NONE = new OperationFaults(false, Duration.ZERO, null, 0, 0);

        OperationFaults failing(ErrorKind kind, int successes, int failures) {
            return new OperationFaults(hang, latency, kind, successes, failures);
        }

        OperationFaults withLatency(Duration latency) {
            return new OperationFaults(hang, latency, kind, successesLeft, failuresLeft);
        }

        OperationFaults hanging() {
            return new OperationFaults(true, latency, kind, successesLeft, failuresLeft);
        }

        ErrorKind errorForThisCall() {
            return kind != null && successesLeft == 0 ? kind : null;
        }

        /** These faults as they stand for the call after the current one. */
        OperationFaults afterCall() {
            if (kind == null) {
                return this;
            }
            if (successesLeft > 0) {
                return new OperationFaults(hang, latency, kind, successesLeft - 1, failuresLeft);
            }
            if (failuresLeft == UNLIMITED) {
                return this;
            }
            int left = failuresLeft - 1;
            return new OperationFaults(hang, latency, left == 0 ? null : kind, 0, left);
        }
    }
}

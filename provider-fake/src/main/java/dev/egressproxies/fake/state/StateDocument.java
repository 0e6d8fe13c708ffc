package dev.egressproxies.fake.state;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The content of a state file: the instances, and the operation log of the entries that keep one.
 *
 * @param instances  every instance, managed or not, by provider ID, in ID order
 * @param operations the operation log, oldest record first; empty when no entry using the file
 *                   keeps one
 */
record StateDocument(Map<String, StoredInstance> instances, List<OperationRecord> operations) {
    /** The content of a state file that does not exist yet. */
    static final StateDocument EMPTY = new StateDocument(Map.of(), List.of());

    /** Copies both parts, immutable, the instances sorted so that the file lists them in ID order. */
    StateDocument {
        instances = Collections.unmodifiableMap(new TreeMap<>(instances));
        operations = List.copyOf(operations);
    }
}

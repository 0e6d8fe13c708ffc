package dev.egressproxies.fake.state;

import java.util.Map;

/**
 * Where a fake provider keeps its instances: in memory, or in a file that several processes
 * share. Safe for concurrent use.
 *
 * <p>Errors are {@link dev.egressproxies.api.ProviderException}s carrying the call's operation and
 * instance: TRANSIENT when the deadline passes or the thread is interrupted while waiting for a
 * lock, PERMANENT when the state cannot be read.
 */
public interface InstanceStore {

    /** A snapshot of every instance, by provider ID. */
    Map<String, StoredInstance> read(StoreCall call);

    /**
     * Applies {@code change} to the current instances as one atomic step: no other change, from
     * this process or another, happens between its reading and its writing. A change that throws
     * leaves the instances as they were.
     *
     * @return what {@code change} returned
     */
    <T> T update(StoreCall call, Change<T> change);

    /** Where the instances are kept, for people: {@code "memory"} or the file's path. */
    String location();

    /**
     * A change to the instances.
     *
     * @param <T> what the change returns to the caller
     */
    @FunctionalInterface
    interface Change<T> {
        /**
         * Reads and modifies {@code instances}, a private copy keyed by provider ID that the store
         * saves when it was modified.
         */
        T apply(Map<String, StoredInstance> instances);
    }
}

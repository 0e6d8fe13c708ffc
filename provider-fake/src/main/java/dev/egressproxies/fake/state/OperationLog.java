package dev.egressproxies.fake.state;

import java.util.function.Supplier;

/**
 * Where a provider entry records who made each of its mutating operations, and when. Safe for
 * concurrent use.
 */
public interface OperationLog {
    /** The log of an entry that keeps none: runs every operation and records nothing. */
    OperationLog NONE = new OperationLog() {
        @Override
        public <T> T record(StoreCall call, Supplier<T> operation) {
            return operation.get();
        }
    };

    /**
     * Runs {@code operation}, the one {@code call} describes, recording that it began before it
     * runs and how it ended once it returns or throws.
     *
     * @return what {@code operation} returned
     * @throws dev.egressproxies.api.ProviderException what {@code operation} throws; or, before it
     *                           runs, the error of recording its beginning, as for any store access
     *                           of {@code call} (TRANSIENT when the deadline passes while waiting
     *                           for the lock)
     */
    <T> T record(StoreCall call, Supplier<T> operation);
}

package dev.egressproxies.fake.state;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Instances kept in this provider's memory only, lost when it is garbage.
 */
public final class InMemoryInstanceStore implements InstanceStore {
    private final String entry;
    /** Serialises updates; a lock rather than {@code synchronized} so waiting honours the deadline. */
    private final ReentrantLock lock = new ReentrantLock();
    /** An immutable snapshot, replaced as a whole, so reads need no lock. */
    private volatile Map<String, StoredInstance> instances = Map.of();

    /** Creates an empty store for the provider entry named {@code entry}. */
    public InMemoryInstanceStore(String entry) {
        this.entry = entry;
    }

    @Override
    public Map<String, StoredInstance> read(StoreCall call) {
        call.deadline().check(call.operation(), entry, call.instanceId());
        return instances;
    }

    @Override
    public <T> T update(StoreCall call, Change<T> change) {
        DeadlineLocks.lock(lock, entry, call, location());
        try {
            Map<String, StoredInstance> copy = new TreeMap<>(instances);
            T result = change.apply(copy);
            instances = Map.copyOf(copy);
            return result;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String location() {
        return "memory";
    }
}

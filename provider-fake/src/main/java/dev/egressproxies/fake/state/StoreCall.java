package dev.egressproxies.fake.state;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.Operation;

/**
 * The provider call a store access is made for: what to put in an error, and by when to give up
 * waiting for a lock.
 *
 * @param operation  the provider operation
 * @param instanceId the instance it is about, or {@code ""}
 * @param deadline   the caller's deadline
 */
public record StoreCall(Operation operation, String instanceId, Deadline deadline) {
}

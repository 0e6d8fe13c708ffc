package dev.egressproxies.registry;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.PreflightCheck;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.ProviderException;
import java.util.List;

/**
 * The stand-in for an entry whose plugin failed to build it (see
 * {@link ProviderRegistry#buildIsolatingFailures}): every call fails with the build error, so the
 * entry reports its problem when used while the other entries keep working.
 */
final class UnavailableProvider implements Provider {
    private final String entry;
    private final ErrorKind kind;
    private final String reason;
    private final Throwable failure;

    UnavailableProvider(String entry, Throwable failure, String reason) {
        this.entry = entry;
        this.kind = failure instanceof ProviderException providerFailure ? providerFailure.kind() : ErrorKind.PERMANENT;
        this.reason = reason;
        this.failure = failure;
    }

    @Override
    public String create(CreateRequest request, Deadline deadline) {
        throw unavailable(Operation.CREATE, request.name());
    }

    @Override
    public void validate(CreateRequest request) {
        throw unavailable(Operation.CREATE, request.name());
    }

    @Override
    public Instance get(String id, Deadline deadline) {
        throw unavailable(Operation.GET, id);
    }

    @Override
    public void delete(String id, Deadline deadline) {
        throw unavailable(Operation.DELETE, id);
    }

    @Override
    public List<Instance> listManaged(Deadline deadline) {
        throw unavailable(Operation.LIST_MANAGED, "");
    }

    @Override
    public List<PreflightCheck> preflight(Deadline deadline) {
        return List.of(PreflightCheck.failed("entry builds", detail()));
    }

    @Override
    public String toString() {
        return "UnavailableProvider[entry=" + entry + "]";
    }

    private ProviderException unavailable(Operation operation, String instanceId) {
        return new ProviderException(kind, operation, entry, instanceId, detail(), failure);
    }

    private String detail() {
        return "the entry could not be built, so it cannot be used (the other entries can): " + reason;
    }
}

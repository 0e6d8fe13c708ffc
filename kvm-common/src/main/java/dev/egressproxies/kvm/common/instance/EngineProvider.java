package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.PreflightCheck;
import dev.egressproxies.api.Provider;
import java.util.List;
import java.util.Objects;

/**
 * A KVM backend's {@link Provider} whose operations are an {@link InstanceEngine}'s: the base class
 * of the backends' public provider classes, which build the engine with their base-image strategy
 * and may wrap the operations (in spans, for example). Safe for concurrent use.
 */
public abstract class EngineProvider implements Provider {
    private final String entry;
    private final InstanceEngine<?> engine;

    /**
     * A provider of the entry {@code entry} whose operations are {@code engine}'s.
     *
     * @param entry  the entry's configured name
     * @param engine the engine; closed with the provider
     */
    protected EngineProvider(String entry, InstanceEngine<?> engine) {
        this.entry = Objects.requireNonNull(entry, "entry");
        this.engine = Objects.requireNonNull(engine, "engine");
    }

    /**
     * {@inheritDoc}
     *
     * <p>Errors about the request or its placement carry the request's name as instance ID, later
     * ones the provider ID. A domain of that name that this platform created is only started; one
     * it did not create fails the call as PERMANENT and is left alone.
     */
    @Override
    public String create(CreateRequest request, Deadline deadline) {
        return engine.create(request, deadline);
    }

    /**
     * {@inheritDoc}
     *
     * <p>The zone must name a configured host (it may be empty when exactly one is configured), the
     * machine type must be configured, and the image must be one the backend knows.
     */
    @Override
    public void validate(CreateRequest request) {
        engine.validate(request);
    }

    @Override
    public Instance get(String id, Deadline deadline) {
        return engine.get(id, deadline);
    }

    @Override
    public void delete(String id, Deadline deadline) {
        engine.delete(id, deadline);
    }

    @Override
    public List<Instance> listManaged(Deadline deadline) {
        return engine.listManaged(deadline);
    }

    @Override
    public List<PreflightCheck> preflight(Deadline deadline) {
        return engine.preflight(deadline);
    }

    /** Closes the connections to the hosts. */
    @Override
    public void close() {
        engine.close();
    }

    /** The entry's configured name. */
    protected final String entry() {
        return entry;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[entry=" + entry + "]";
    }
}

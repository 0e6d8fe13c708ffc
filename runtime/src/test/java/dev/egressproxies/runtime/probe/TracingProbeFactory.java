package dev.egressproxies.runtime.probe;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.InstanceState;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.api.spi.ProviderContext;
import dev.egressproxies.api.spi.ProviderFactory;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import java.util.List;

/**
 * A test plugin (type {@code probe}) whose create records a span through the context's
 * OpenTelemetry, to prove that plugin spans reach the runtime's SDK. Found through
 * {@code META-INF/services} like any class-path plugin.
 */
public final class TracingProbeFactory implements ProviderFactory<TracingProbeFactory.ProbeConfig> {

    /**
     * The probe's settings.
     *
     * @param spanName the name of the span create records
     */
    public record ProbeConfig(String spanName) {
        /** Defaults the span name. */
        public ProbeConfig {
            spanName = spanName == null ? "probe.create" : spanName;
        }
    }

    @Override
    public String type() {
        return "probe";
    }

    @Override
    public Class<ProbeConfig> configType() {
        return ProbeConfig.class;
    }

    @Override
    public Provider create(String entryName, ProbeConfig config, ProviderContext context) {
        Tracer tracer = context.openTelemetry().getTracer("probe");
        return new Provider() {
            @Override
            public String create(CreateRequest request, Deadline deadline) {
                request.validate(entryName);
                Span span = tracer.spanBuilder(config.spanName()).setAttribute("probe.entry", entryName).startSpan();
                span.end();
                return "p/" + request.name();
            }

            @Override
            public Instance get(String id, Deadline deadline) {
                throw new ProviderException(ErrorKind.NOT_FOUND, Operation.GET, entryName, id, "the probe keeps nothing");
            }

            @Override
            public void delete(String id, Deadline deadline) {
            }

            @Override
            public List<Instance> listManaged(Deadline deadline) {
                return List.of(new Instance("p/seen", "seen", "", InstanceState.PROVISIONING, "u", context.clock().instant()));
            }
        };
    }
}

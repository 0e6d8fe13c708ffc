package dev.egressproxies.runtime.wiring;

import dagger.BindsInstance;
import dagger.Component;
import javax.inject.Singleton;

/**
 * The component tests build: the production config, registry and logging modules, with the
 * services and telemetry swapped for a fixed clock and an in-memory span exporter.
 */
@Singleton
@Component(modules = {ConfigModule.class, RegistryModule.class, TestServicesModule.class,
    TestTelemetryModule.class, LoggingModule.class})
public interface TestEgressctlComponent {

    /** The session commands run in. */
    Session session();

    /** Builds the component for one invocation. */
    @Component.Factory
    interface Factory {
        /** Builds it. */
        TestEgressctlComponent create(@BindsInstance Invocation invocation, @BindsInstance SpanRecorder spans);
    }
}

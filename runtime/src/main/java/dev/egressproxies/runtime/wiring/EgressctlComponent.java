package dev.egressproxies.runtime.wiring;

import dagger.BindsInstance;
import dagger.Component;
import javax.inject.Singleton;

/**
 * The Dagger component of one {@code egressctl} invocation: one module per concern (config,
 * registry, shared services, telemetry, logging). Tests build their own component that swaps the
 * services and telemetry modules.
 */
@Singleton
@Component(modules = {ConfigModule.class, RegistryModule.class, ServicesModule.class, TelemetryModule.class,
    LoggingModule.class})
public interface EgressctlComponent {

    /** The session commands run in. */
    Session session();

    /** Builds the component for one invocation. */
    @Component.Factory
    interface Factory {
        /** Builds it. */
        EgressctlComponent create(@BindsInstance Invocation invocation);
    }
}

package dev.egressproxies.registry;

import dev.egressproxies.api.spi.ProviderFactory;
import java.util.Objects;

/**
 * A discovered provider plugin: the backend type it provides, its version, where it was loaded
 * from, and its factory.
 *
 * @param type     the type name configuration entries select it by, for example {@code kvm}
 * @param version  the plugin's version ({@link ProviderFactory#version()}), or {@code "unknown"}
 * @param location where the factory class was loaded from, for example
 *                 {@code module dev.example.kvm (file:/opt/plugins/kvm.jar)} or
 *                 {@code class path file:/opt/lib/kvm.jar}
 * @param factory  the plugin's factory
 */
public record Plugin(String type, String version, String location, ProviderFactory<?> factory) {

    /** Requires every component. */
    public Plugin {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(factory, "factory");
    }

    /** The fully qualified class name of the factory. */
    public String factoryClassName() {
        return factory.getClass().getName();
    }

    /** The factory class and its location, as error messages name a plugin. */
    public String source() {
        return factoryClassName() + " from " + location;
    }
}

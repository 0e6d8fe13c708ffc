package dev.egressproxies.api.spi;

import dev.egressproxies.api.Provider;
import dev.egressproxies.api.conformance.ConformanceProfile;
import java.util.Optional;

/**
 * A plugin's entry point: it names a backend type, declares the configuration record an entry of
 * that type binds to, and builds a {@link Provider} for one configured entry.
 *
 * <p>Plugins register implementations with {@link java.util.ServiceLoader}: a {@code provides}
 * clause in {@code module-info.java} on the module path, or a
 * {@code META-INF/services/dev.egressproxies.api.spi.ProviderFactory} file on the class path.
 * A factory has a public no-argument constructor and no state.
 *
 * @param <C> the configuration record type; the platform binds each entry's settings to it, so
 *            its package must be open to reflection: an unqualified {@code opens} clause in
 *            module-info, which keeps the plugin free of any tie to the binding library
 * @since 1.0.0
 */
public interface ProviderFactory<C> {

    /**
     * The type name that configuration entries select this backend by, for example {@code kvm}.
     *
     * @since 1.0.0
     */
    String type();

    /**
     * The record that an entry's settings bind to. Unknown and mistyped fields are rejected by the
     * platform, naming their path. Primitive components are required; other components are
     * {@code null} when absent (collections too), and the compact constructor applies defaults
     * or throws {@link IllegalArgumentException}, best with a message that starts with the
     * component's name ({@code "hosts: at least one host is required"}) so the error points there.
     *
     * @since 1.0.0
     */
    Class<C> configType();

    /**
     * Builds the provider for one configured entry. Reads and checks what the configuration names
     * (files, catalogues) so that a bad entry fails here rather than on its first call; does no
     * network I/O.
     *
     * @param entryName the entry's configured name, to put in errors and telemetry
     * @param config    the entry's settings
     * @param context   services the platform shares with every plugin
     * @throws dev.egressproxies.api.ProviderException PERMANENT, operation CONFIGURE, when the
     *                                                 entry cannot work
     * @since 1.0.0
     */
    Provider create(String entryName, C config, ProviderContext context);

    /**
     * How {@code egressctl conformance} checks an entry this factory built: its capabilities,
     * placements, example IDs and hooks. Empty (the default) leaves it to the command line: the
     * operator names placements and IDs, and the suite runs without hooks, asserting that each
     * hook capability is lacking. Called once per run, after {@link #create}.
     *
     * @param entryName the entry's configured name
     * @param config    the entry's settings
     * @param provider  the provider {@link #create} built for the entry
     * @param context   the services it was built with, to build another entry on the same
     *                  infrastructure for {@link dev.egressproxies.api.conformance.ConformanceHarness#anotherEntry}
     * @since 1.0.0
     */
    default Optional<ConformanceProfile> conformanceProfile(String entryName, C config, Provider provider,
                                                            ProviderContext context) {
        return Optional.empty();
    }

    /**
     * The plugin's version, for logs and {@code egressctl providers}: the module version, else
     * the jar manifest's implementation version, else {@code "unknown"}.
     *
     * @since 1.0.0
     */
    default String version() {
        Class<?> type = getClass();
        return type.getModule().getDescriptor() != null
                ? type.getModule().getDescriptor().rawVersion().orElseGet(() -> manifestVersion(type))
                : manifestVersion(type);
    }

    private static String manifestVersion(Class<?> type) {
        String version = type.getPackage().getImplementationVersion();
        return version != null ? version : "unknown";
    }
}

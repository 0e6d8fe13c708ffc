package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.api.conformance.ConformanceHarness;
import dev.egressproxies.api.conformance.ConformanceProfile;
import dev.egressproxies.api.spi.ProviderContext;
import dev.egressproxies.api.spi.ProviderFactory;
import dev.egressproxies.kvm.common.host.HostDialer;
import java.util.Objects;
import java.util.Optional;

/**
 * The plugin entry point of a KVM backend: its type, its configuration record {@code C}, and the
 * provider {@code P} it builds for an entry without network I/O (keys are read at the first dial).
 */
public abstract class EngineFactory<C, P extends InstanceEngine<?>> implements ProviderFactory<C> {
    private final String type;
    private final Class<C> configType;
    private final String requiredSettings;
    private final Builder<C, P> builder;
    private final boolean entriesShareHosts;

    /**
     * A factory of {@code type}, whose entries need at least {@code requiredSettings} (for the
     * error). {@code entriesShareHosts}: a second entry on the same hosts leaves nothing behind
     * once its instances are deleted, so conformance runs may build one.
     */
    protected EngineFactory(String type, Class<C> configType, String requiredSettings, boolean entriesShareHosts,
                            Builder<C, P> builder) {
        this.type = Objects.requireNonNull(type, "type");
        this.configType = Objects.requireNonNull(configType, "configType");
        this.requiredSettings = requiredSettings;
        this.entriesShareHosts = entriesShareHosts;
        this.builder = Objects.requireNonNull(builder, "builder");
    }

    /**
     * Where a backend's providers get the dialer of an entry's hosts: SSH in production, fakes or
     * the local socket in tests. Does no network I/O; hosts are dialled on first use.
     */
    @FunctionalInterface
    public interface Dialers<C> {
        HostDialer dialer(String entryName, C config, ProviderContext context);
    }

    /** How a backend builds the provider of an entry whose configuration is present. */
    @FunctionalInterface
    protected interface Builder<C, P> {
        P build(String entryName, C config, ProviderContext context);
    }

    @Override
    public final String type() {
        return type;
    }

    @Override
    public final Class<C> configType() {
        return configType;
    }

    /** {@inheritDoc} PERMANENT, operation CONFIGURE, when {@code config} is missing. */
    @Override
    public final P create(String entryName, C config, ProviderContext context) {
        if (config == null) {
            throw new ProviderException(ErrorKind.PERMANENT, Operation.CONFIGURE, entryName, "",
                    "a " + type + " entry needs settings: at least " + requiredSettings);
        }
        return builder.build(entryName, config, context);
    }

    /** {@inheritDoc} See {@link InstanceEngine#conformanceProfile}; the second entry is {@code ENTRY-other}. */
    @Override
    public final Optional<ConformanceProfile> conformanceProfile(String entryName, C config, Provider provider,
                                                                 ProviderContext context) {
        String other = entryName + "-other";
        return Optional.of(((InstanceEngine<?>) provider).conformanceProfile(entriesShareHosts
                ? () -> new ConformanceHarness.Entry(create(other, config, context), other)
                : null));
    }
}

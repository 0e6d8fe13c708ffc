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

/** The plugin entry point of a KVM backend, building its provider {@code P} of an entry without network I/O. */
public abstract class EngineFactory<C, P extends InstanceEngine<?>> implements ProviderFactory<C> {
    private final String type;
    private final Class<C> configType;
    private final String requiredSettings;
    private final Builder<C, P> builder;
    private final boolean entriesShareHosts;

    /**
     * {@code requiredSettings} names what an entry needs at least; {@code entriesShareHosts}: a second
     * entry on the same hosts leaves nothing behind, so conformance runs may build one.
     */
    protected EngineFactory(String type, Class<C> configType, String requiredSettings, boolean entriesShareHosts,
                            Builder<C, P> builder) {
        this.type = Objects.requireNonNull(type, "type");
        this.configType = Objects.requireNonNull(configType, "configType");
        this.requiredSettings = requiredSettings;
        this.entriesShareHosts = entriesShareHosts;
        this.builder = Objects.requireNonNull(builder, "builder");
    }

    /** Where providers get the dialer of an entry's hosts (SSH, or fakes in tests); no network I/O. */
    @FunctionalInterface
    public interface Dialers<C> {
        HostDialer dialer(String entryName, C config, ProviderContext context);
    }

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

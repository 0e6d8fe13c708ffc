package dev.egressproxies.kvm2;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.api.spi.ProviderContext;
import dev.egressproxies.api.spi.ProviderFactory;
import dev.egressproxies.kvm2.config.Kvm2Config;
import java.util.Objects;

/**
 * The plugin entry point of the second KVM backend, selected by {@code type: kvm2}; builds a
 * {@link Kvm2Provider} from a {@link Kvm2Config}.
 */
public final class Kvm2ProviderFactory implements ProviderFactory<Kvm2Config> {
    /** The type name configuration entries select this backend by. */
    public static final String TYPE = "kvm2";

    private final HostDialerFactory dialers;

    /** Creates the factory with the production SSH and libvirt transport; ServiceLoader calls this. */
    public Kvm2ProviderFactory() {
        this((entry, config, context) -> config.sshAccess().dialer(config.hosts()));
    }

    /** Creates a factory whose providers reach their hosts through {@code dialers}; for tests. */
    Kvm2ProviderFactory(HostDialerFactory dialers) {
        this.dialers = Objects.requireNonNull(dialers, "dialers");
    }

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public Class<Kvm2Config> configType() {
        return Kvm2Config.class;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Does no network I/O; the key and known_hosts files are read when a host is first dialled,
     * so a key mounted after startup heals the next call.
     *
     * @throws ProviderException PERMANENT, operation CONFIGURE, when {@code config} is missing
     */
    @Override
    public Kvm2Provider create(String entryName, Kvm2Config config, ProviderContext context) {
        if (config == null) {
            throw new ProviderException(ErrorKind.PERMANENT, Operation.CONFIGURE, entryName, "",
                    "a kvm2 entry needs settings: at least hosts, machineTypes, sshKeyFile and knownHostsFile");
        }
        return new Kvm2Provider(entryName, config, context, dialers.dialer(entryName, config, context));
    }
}

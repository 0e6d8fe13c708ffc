package dev.egressproxies.kvm;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.api.spi.ProviderContext;
import dev.egressproxies.api.spi.ProviderFactory;
import dev.egressproxies.kvm.common.host.HostConnections;
import dev.egressproxies.kvm.config.KvmConfig;
import java.util.Objects;

/**
 * The plugin entry point of the first KVM backend, selected by {@code type: kvm}; builds a
 * {@link KvmProvider} from a {@link KvmConfig}.
 */
public final class KvmProviderFactory implements ProviderFactory<KvmConfig> {
    /** The type name configuration entries select this backend by. */
    public static final String TYPE = "kvm";

    private final HostConnectionsFactory connections;

    /** Creates the factory with the production SSH and libvirt transport; ServiceLoader calls this. */
    public KvmProviderFactory() {
        this(new ProductionHostConnections());
    }

    /** Creates a factory whose providers reach their hosts through {@code connections}; for tests. */
    KvmProviderFactory(HostConnectionsFactory connections) {
        this.connections = Objects.requireNonNull(connections, "connections");
    }

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public Class<KvmConfig> configType() {
        return KvmConfig.class;
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
    public KvmProvider create(String entryName, KvmConfig config, ProviderContext context) {
        if (config == null) {
            throw new ProviderException(ErrorKind.PERMANENT, Operation.CONFIGURE, entryName, "",
                    "a kvm entry needs settings: at least hosts, machineTypes, images, sshKeyFile and knownHostsFile");
        }
        HostConnections hostConnections = connections.open(entryName, config, context);
        return new KvmProvider(entryName, config, context, hostConnections);
    }
}

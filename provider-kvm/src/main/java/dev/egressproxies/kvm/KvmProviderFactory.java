package dev.egressproxies.kvm;

import dev.egressproxies.kvm.common.instance.EngineFactory;
import dev.egressproxies.kvm.config.KvmConfig;

/** The plugin entry point of the first KVM backend, selected by {@code type: kvm}. */
public final class KvmProviderFactory extends EngineFactory<KvmConfig, KvmProvider> {
    /** The type name configuration entries select this backend by. */
    public static final String TYPE = "kvm";

    /** The factory with the production SSH and libvirt transport; ServiceLoader calls this. */
    public KvmProviderFactory() {
        this(new ProductionHostConnections());
    }

    /** A factory whose providers reach their hosts through {@code connections}; for tests. */
    KvmProviderFactory(HostConnectionsFactory connections) {
        super(TYPE, KvmConfig.class, "hosts, machineTypes, images, sshKeyFile and knownHostsFile",
                (entry, config, context) -> new KvmProvider(entry, config, context,
                        connections.open(entry, config, context)));
    }
}

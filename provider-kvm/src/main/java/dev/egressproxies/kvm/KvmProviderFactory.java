package dev.egressproxies.kvm;

import dev.egressproxies.kvm.common.instance.EngineFactory;
import dev.egressproxies.kvm.config.KvmConfig;
import dev.egressproxies.kvm.config.KvmHost;

/** The plugin entry point of the first KVM backend, selected by {@code type: kvm}. */
public final class KvmProviderFactory extends EngineFactory<KvmConfig, KvmProvider> {
    /** The type name configuration entries select this backend by. */
    public static final String TYPE = "kvm";

    /** The factory with the production SSH and libvirt transport; ServiceLoader calls this. */
    public KvmProviderFactory() {
        this((entry, config, context) -> config.sshAccess().dialer(
                config.hosts().stream().map(KvmHost::settings).toList()));
    }

    /** A factory whose providers reach their hosts through what {@code dialers} makes; for tests. */
    KvmProviderFactory(Dialers<KvmConfig> dialers) {
        super(TYPE, KvmConfig.class, "hosts, machineTypes, images, sshKeyFile and knownHostsFile", true,
                (entry, config, context) -> new KvmProvider(entry, config, context,
                        dialers.dialer(entry, config, context)));
    }
}

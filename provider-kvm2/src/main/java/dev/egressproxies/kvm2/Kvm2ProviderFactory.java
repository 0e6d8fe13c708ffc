package dev.egressproxies.kvm2;

import dev.egressproxies.kvm.common.instance.EngineFactory;
import dev.egressproxies.kvm2.config.Kvm2Config;

/** The plugin entry point of the second KVM backend, selected by {@code type: kvm2}. */
public final class Kvm2ProviderFactory extends EngineFactory<Kvm2Config, Kvm2Provider> {
    /** The type name configuration entries select this backend by. */
    public static final String TYPE = "kvm2";

    /** The factory with the production SSH and libvirt transport; ServiceLoader calls this. */
    public Kvm2ProviderFactory() {
        this((entry, config, context) -> config.sshAccess().dialer(config.hosts()));
    }

    /** A factory whose providers reach their hosts through {@code dialers}; for tests. */
    Kvm2ProviderFactory(Dialers<Kvm2Config> dialers) {
        super(TYPE, Kvm2Config.class, "hosts, machineTypes, sshKeyFile and knownHostsFile", false,
                (entry, config, context) -> new Kvm2Provider(entry, config, context,
                        dialers.dialer(entry, config, context)));
    }
}

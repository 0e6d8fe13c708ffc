package dev.egressproxies.integration.kvm;

import dev.egressproxies.api.spi.ProviderContext;
import dev.egressproxies.api.spi.ProviderFactory;
import dev.egressproxies.kvm2.Kvm2Provider;
import dev.egressproxies.kvm2.Kvm2ProviderFactory;
import dev.egressproxies.kvm2.config.Kvm2Config;

/**
 * A {@code kvm2} plugin for the crash tests: binds the same configuration as the real one (the
 * registry does that) and builds real {@link Kvm2Provider}s on the production SSH transport, whose
 * libvirt calls pass a {@link StopBeforeCall} first.
 */
final class StoppingKvm2ProviderFactory implements ProviderFactory<Kvm2Config> {
    private final StopBeforeCall crashPoint;

    StoppingKvm2ProviderFactory(StopBeforeCall crashPoint) {
        this.crashPoint = crashPoint;
    }

    @Override
    public String type() {
        return Kvm2ProviderFactory.TYPE;
    }

    @Override
    public Class<Kvm2Config> configType() {
        return Kvm2Config.class;
    }

    @Override
    public Kvm2Provider create(String entryName, Kvm2Config config, ProviderContext context) {
        return new Kvm2Provider(entryName, config, context,
                new InterceptingDialer(config.sshAccess().dialer(config.hosts()), crashPoint));
    }
}

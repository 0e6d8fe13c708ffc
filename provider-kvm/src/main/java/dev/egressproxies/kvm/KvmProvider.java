package dev.egressproxies.kvm;

import dev.egressproxies.api.spi.ProviderContext;
import dev.egressproxies.kvm.common.config.MachineSize;
import dev.egressproxies.kvm.common.host.HostDialer;
import dev.egressproxies.kvm.common.image.ImageFetcher;
import dev.egressproxies.kvm.common.image.ImageFetcher.TransferBudget;
import dev.egressproxies.kvm.common.instance.EntrySettings;
import dev.egressproxies.kvm.common.instance.HostPool;
import dev.egressproxies.kvm.common.instance.InstanceEngine;
import dev.egressproxies.kvm.config.KvmConfig;
import dev.egressproxies.kvm.config.KvmHost;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code kvm} backend: kvm-common's {@link InstanceEngine} with cloud images downloaded into a
 * host's pool on first use and marked complete by an empty marker volume ({@link KvmBaseImages}).
 * Safe for concurrent use.
 */
public final class KvmProvider extends InstanceEngine<KvmImageChoice> {

    /**
     * The provider of one configured entry. Does no I/O.
     *
     * @param context     the clock, the HTTP client for image downloads, the progress reporter
     * @param dialer  opens the links to the entry's hosts, on first use
     */
    public KvmProvider(String entry, KvmConfig config, ProviderContext context, HostDialer dialer) {
        this(entry, config, context, new HostPool(dialer, config.sshAccess().dialTimeout(), Optional.empty()));
    }

    private KvmProvider(String entry, KvmConfig config, ProviderContext context, HostPool hosts) {
        super(settings(entry, config), hosts, images(entry, config, context, hosts), context.clock());
    }

    private static EntrySettings settings(String entry, KvmConfig config) {
        Map<String, MachineSize> sizes = new LinkedHashMap<>();
        config.machineTypes().forEach((name, type) -> sizes.put(name, type.size()));
        return new EntrySettings(entry, config.hosts().stream().map(KvmHost::settings).toList(), sizes,
                config.diskSizeGb(), config.vendorData(), config.claimsHost(), config.claimTimeout());
    }

    private static KvmBaseImages images(String entry, KvmConfig config, ProviderContext context, HostPool hosts) {
        // No transfer budget of its own (kvm has no such setting): the caller's deadline bounds a download.
        return new KvmBaseImages(entry, config, hosts, new ImageFetcher(context::httpClient, context.progress(),
                TransferBudget.none(), config.imageIdleTimeout()));
    }
}

package dev.egressproxies.kvm;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.spi.ProviderContext;
import dev.egressproxies.kvm.common.config.MachineSize;
import dev.egressproxies.kvm.common.host.HostConnections;
import dev.egressproxies.kvm.common.image.ImageFetcher;
import dev.egressproxies.kvm.common.image.ImageSizeProbe;
import dev.egressproxies.kvm.common.image.TransferBudget;
import dev.egressproxies.kvm.common.instance.BaseVolumeFetch;
import dev.egressproxies.kvm.common.instance.EngineProvider;
import dev.egressproxies.kvm.common.instance.EntrySettings;
import dev.egressproxies.kvm.common.instance.HostCaller;
import dev.egressproxies.kvm.common.instance.InstanceEngine;
import dev.egressproxies.kvm.common.xml.InstanceMetadata;
import dev.egressproxies.kvm.config.KvmConfig;
import dev.egressproxies.kvm.config.KvmHost;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The {@code kvm} backend: VMs as libvirt domains on one or more hypervisors reached over SSH, each
 * booting a cached cloud image through its own qcow2 overlay, with its cloud-init configuration on
 * a NoCloud seed ISO built in-process.
 *
 * <p>Provider IDs are {@code host/name}. Zones are the configured host names. An instance is
 * managed when its domain carries the platform's metadata element ({@link InstanceMetadata});
 * domains without it are never listed. The operations are kvm-common's {@link InstanceEngine};
 * this backend adds its images ({@link KvmBaseImages}): downloaded into a host's pool on first use
 * and marked complete by an empty marker volume. Safe for concurrent use.
 */
public final class KvmProvider extends EngineProvider {

    /**
     * Creates the provider of one configured entry. Does no I/O: hosts are dialled by
     * {@code connections} on first use.
     *
     * @param entry       the entry's configured name, carried by every error
     * @param config      the entry's settings
     * @param context     the platform's shared services: the clock for creation times and seeds, the
     *                    HTTP client for image downloads, and the progress reporter
     * @param connections the connections to the entry's hosts; closed with the provider
     */
    public KvmProvider(String entry, KvmConfig config, ProviderContext context, HostConnections connections) {
        super(entry, engine(entry, config, context, connections));
    }

    private static InstanceEngine<KvmImageChoice> engine(String entry, KvmConfig config, ProviderContext context,
                                                         HostConnections connections) {
        Objects.requireNonNull(entry, "entry");
        Objects.requireNonNull(config, "config");
        HostCaller hosts = new HostCaller(Objects.requireNonNull(connections, "connections"));
        // No transfer budget of its own (kvm has no such setting): the caller's deadline bounds a download.
        BaseVolumeFetch fetch = new BaseVolumeFetch(
                new ImageFetcher(context.httpClient(), context.progress(), TransferBudget.none(),
                        config.imageIdleTimeout()));
        KvmBaseImages images = new KvmBaseImages(entry, config, hosts, fetch,
                new ImageSizeProbe(context.httpClient(), config.imageIdleTimeout()));
        Map<String, MachineSize> sizes = new LinkedHashMap<>();
        config.machineTypes().forEach((name, type) -> sizes.put(name, type.size()));
        EntrySettings settings = new EntrySettings(entry, config.hosts().stream().map(KvmHost::settings).toList(),
                sizes, config.diskSizeGb(), config.vendorData());
        return new InstanceEngine<>(settings, hosts, images, context.clock());
    }

    /**
     * {@inheritDoc}
     *
     * <p>The first create of an image on a host downloads the image into the host's pool, within
     * this call's deadline.
     */
    @Override
    public String create(CreateRequest request, Deadline deadline) {
        return super.create(request, deadline);
    }
}

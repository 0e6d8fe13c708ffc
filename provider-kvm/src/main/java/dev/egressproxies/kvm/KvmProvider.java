package dev.egressproxies.kvm;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.PreflightCheck;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.api.spi.ProviderContext;
import dev.egressproxies.kvm.common.host.HostConnections;
import dev.egressproxies.kvm.common.libvirt.Domain;
import dev.egressproxies.kvm.common.xml.InstanceMetadata;
import dev.egressproxies.kvm.config.KvmConfig;
import dev.egressproxies.kvm.config.KvmHost;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code kvm} backend: VMs as libvirt domains on one or more hypervisors reached over SSH, each
 * booting a cached cloud image through its own qcow2 overlay, with its cloud-init configuration on
 * a NoCloud seed ISO built in-process.
 *
 * <p>Provider IDs are {@code host/name}. Zones are the configured host names. An instance is
 * managed when its domain carries the platform's metadata element ({@link InstanceMetadata});
 * domains without it are never listed. Every libvirt call goes through the entry's
 * {@link HostConnections}, which bounds it by the caller's deadline; this class adds the deadline
 * checks between steps. See {@link InstanceCreator}, {@link InstanceRemover} and
 * {@link ManagedInstanceLister} for what each operation does step by step. Safe for concurrent use.
 */
public final class KvmProvider implements Provider {
    private final String entry;
    private final Placements placements;
    private final HostCaller hosts;
    private final InstanceCreator creator;
    private final InstanceRemover remover;
    private final ManagedInstanceLister lister;
    private final PreflightChecks preflight;

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
        this.entry = Objects.requireNonNull(entry, "entry");
        Objects.requireNonNull(config, "config");
        this.placements = new Placements(entry, config);
        this.hosts = new HostCaller(Objects.requireNonNull(connections, "connections"));
        ImageDownloader downloader = new ImageDownloader(context.httpClient(), entry);
        BaseImageCache images = new BaseImageCache(hosts, downloader, context.progress());
        KeyedLocks instanceLocks = new KeyedLocks();
        this.creator = new InstanceCreator(entry, config.diskSizeGb(), placements, hosts, images,
                new SeedImages(context.clock(), config.vendorData()), context.clock(), instanceLocks);
        this.remover = new InstanceRemover(entry, placements, hosts, instanceLocks);
        this.lister = new ManagedInstanceLister(entry, config.hosts(), hosts);
        this.preflight = new PreflightChecks(entry, config, hosts, downloader);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Errors about the request or its placement carry the request's name as instance ID, later
     * ones the provider ID. The first create of an image on a host downloads the image into the
     * host's pool, within this call's deadline. A domain of that name that this platform created
     * is only started; one it did not create fails the call as PERMANENT and is left alone.
     */
    @Override
    public String create(CreateRequest request, Deadline deadline) {
        return creator.create(request, deadline);
    }

    @Override
    public Instance get(String id, Deadline deadline) {
        ProviderId parsed = ProviderId.parse(id, Operation.GET, entry);
        KvmHost host = placements.hostOf(parsed, Operation.GET);
        Call call = new Call(entry, Operation.GET, id, deadline);
        return hosts.call(host, call, libvirt -> {
            Domain domain = LibvirtSteps.step("looking up domain " + parsed.name(),
                    () -> libvirt.lookupDomain(parsed.name()))
                    .orElseThrow(() -> new ProviderException(ErrorKind.NOT_FOUND, Operation.GET, entry, id,
                            "no domain '" + parsed.name() + "' on host '" + host.name()
                                    + "': it was deleted or never created"));
            Optional<InstanceMetadata> metadata = InstanceInspector.readableMetadataOf(libvirt, host, domain, call);
            call.checkDeadline();
            return InstanceInspector.describe(libvirt, host.name(), domain, metadata);
        });
    }

    @Override
    public void delete(String id, Deadline deadline) {
        remover.delete(id, deadline);
    }

    @Override
    public List<Instance> listManaged(Deadline deadline) {
        return lister.listManaged(deadline);
    }

    @Override
    public List<PreflightCheck> preflight(Deadline deadline) {
        return preflight.run(deadline);
    }

    /** Closes the connections to the hosts. */
    @Override
    public void close() {
        hosts.close();
    }

    @Override
    public String toString() {
        return "KvmProvider[entry=" + entry + "]";
    }
}

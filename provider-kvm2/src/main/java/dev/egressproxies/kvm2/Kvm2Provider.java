package dev.egressproxies.kvm2;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.api.spi.ProviderContext;
import dev.egressproxies.kvm.common.host.CachingHostConnections;
import dev.egressproxies.kvm.common.host.HostDialer;
import dev.egressproxies.kvm.common.image.ImageFetcher;
import dev.egressproxies.kvm.common.image.ImageSizeProbe;
import dev.egressproxies.kvm.common.image.TransferBudget;
import dev.egressproxies.kvm.common.instance.BaseImageDiscard;
import dev.egressproxies.kvm.common.instance.EngineProvider;
import dev.egressproxies.kvm.common.instance.EntrySettings;
import dev.egressproxies.kvm.common.instance.HostCaller;
import dev.egressproxies.kvm.common.instance.InstanceEngine;
import dev.egressproxies.kvm.common.instance.ProviderId;
import dev.egressproxies.kvm2.config.Kvm2Config;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.SpanKind;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code kvm2} backend: VMs as libvirt domains on hypervisors reached over SSH, each booting
 * an image through its own qcow2 overlay, with cloud-init on a NoCloud seed ISO built in-process.
 *
 * <p>The operations are kvm-common's {@link dev.egressproxies.kvm.common.instance.InstanceEngine}
 * (provider IDs {@code host/name}, zones are host names, managed domains carry the platform's
 * metadata). This backend adds its images ({@link DigestPinnedImages}): a catalogue key or an
 * http(s) URL, fetched and decompressed on the fly into a base volume per (entry, image) and host,
 * pinned by the sha256 in a marker volume, with a quota precheck; a per-call time budget on every
 * round of libvirt calls ({@code rpcBudget}) and one on each image fetch ({@code transferBudget});
 * and spans for create, get, delete, listManaged and each download ({@link Kvm2Telemetry}). Safe for
 * concurrent use.
 */
public final class Kvm2Provider extends EngineProvider {
    private final Kvm2Telemetry telemetry;

    /**
     * Creates the provider of one configured entry. Does no I/O: hosts are dialled on first use,
     * through {@code dialer}: once for the pooled connection of each host, and once more for each
     * image fetch, which runs over a connection of its own.
     *
     * @param entry   the entry's configured name, carried by every error
     * @param config  the entry's settings
     * @param context the platform's shared services: the clock, OpenTelemetry, the HTTP client for
     *                image fetches, and the progress reporter
     * @param dialer  opens connections to the entry's hosts
     */
    public Kvm2Provider(String entry, Kvm2Config config, ProviderContext context, HostDialer dialer) {
        this(entry, config, context, dialer, new Kvm2Telemetry(context.openTelemetry(), entry));
    }

    private Kvm2Provider(String entry, Kvm2Config config, ProviderContext context, HostDialer dialer,
                         Kvm2Telemetry telemetry) {
        super(entry, engine(entry, config, context, dialer, telemetry));
        this.telemetry = telemetry;
    }

    private static InstanceEngine<Kvm2Image> engine(String entry, Kvm2Config config, ProviderContext context,
                                                    HostDialer dialer, Kvm2Telemetry telemetry) {
        Objects.requireNonNull(entry, "entry");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(dialer, "dialer");
        Duration dialTimeout = config.sshAccess().dialTimeout();
        HostCaller hosts = new HostCaller(new CachingHostConnections(dialer, dialTimeout),
                Optional.of(config.rpcBudget()));
        BaseImageDiscard discard = new BaseImageDiscard(hosts, config.rpcBudget());
        BaseImageTransfer transfer = new BaseImageTransfer(
                new ImageFetcher(context.httpClient(), context.progress(), TransferBudget.of(config.transferBudget()),
                        config.imageIdleTimeout()),
                () -> new CachingHostConnections(dialer, dialTimeout), config.transferBudget(), discard);
        DigestPinnedImages images = new DigestPinnedImages(new ImageCatalogue(entry, config.images()), hosts,
                new ImageSizeProbe(context.httpClient(), config.imageIdleTimeout()), config.rpcBudget(), new PoolSpace(config.diskSizeGb()),
                transfer, discard, telemetry);
        EntrySettings settings = new EntrySettings(entry, config.hosts(), config.machineTypes(), config.diskSizeGb(),
                config.vendorData());
        return new InstanceEngine<>(settings, hosts, images, context.clock());
    }

    /**
     * {@inheritDoc}
     *
     * <p>Errors about the request or its placement carry the request's name as instance ID, later
     * ones the provider ID. The first create of an image on a host fetches it into the host's pool,
     * within this call's deadline and the transfer budget; concurrent creates wait for that fetch
     * up to their own deadlines. A create that would not fit into the pool is QUOTA_EXCEEDED before
     * anything is written.
     */
    @Override
    public String create(CreateRequest request, Deadline deadline) {
        Attributes attributes = Attributes.of(Kvm2Telemetry.INSTANCE, request == null ? "" : request.name());
        return telemetry.inSpan("kvm2.create", SpanKind.INTERNAL, attributes, () -> super.create(request, deadline),
                done -> hostOf(done.result() != null ? done.result() : idOf(done.failure()))
                        .ifPresent(host -> done.span().setAttribute(Kvm2Telemetry.HOST, host)));
    }

    @Override
    public Instance get(String id, Deadline deadline) {
        return telemetry.inSpan("kvm2.get", attributesOf(id), () -> super.get(id, deadline));
    }

    @Override
    public void delete(String id, Deadline deadline) {
        telemetry.inSpan("kvm2.delete", attributesOf(id), () -> {
            super.delete(id, deadline);
            return null;
        });
    }

    @Override
    public List<Instance> listManaged(Deadline deadline) {
        return telemetry.inSpan("kvm2.listManaged", Attributes.empty(), () -> super.listManaged(deadline));
    }

    private Attributes attributesOf(String id) {
        String shown = id == null ? "" : id;
        return hostOf(shown).map(host -> Attributes.of(Kvm2Telemetry.INSTANCE, shown, Kvm2Telemetry.HOST, host))
                .orElse(Attributes.of(Kvm2Telemetry.INSTANCE, shown));
    }

    /** The host a provider ID names, when it is one. */
    private Optional<String> hostOf(String id) {
        try {
            return Optional.of(ProviderId.parse(id, Operation.GET, entry()).host());
        } catch (ProviderException notAnId) {
            return Optional.empty();
        }
    }

    private static String idOf(RuntimeException failure) {
        return failure instanceof ProviderException error ? error.instanceId() : "";
    }
}

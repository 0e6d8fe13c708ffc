package dev.egressproxies.kvm2;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.api.spi.ProviderContext;
import dev.egressproxies.kvm.common.host.HostDialer;
import dev.egressproxies.kvm.common.image.HostImageFetcher;
import dev.egressproxies.kvm.common.image.ImageFetcher;
import dev.egressproxies.kvm.common.image.ImageFetcher.TransferBudget;
import dev.egressproxies.kvm.common.instance.BaseImageDiscard;
import dev.egressproxies.kvm.common.instance.EntrySettings;
import dev.egressproxies.kvm.common.instance.HostPool;
import dev.egressproxies.kvm.common.instance.HostSideFetch;
import dev.egressproxies.kvm.common.instance.InstanceEngine;
import dev.egressproxies.kvm.common.instance.ProviderId;
import dev.egressproxies.kvm2.config.Kvm2Config;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.SpanKind;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The {@code kvm2} backend: kvm-common's {@link InstanceEngine} with images named by a catalogue key
 * or an http(s) URL, fetched on the fly into a base volume pinned by its sha256 after a quota
 * precheck ({@link DigestPinnedImages}), time budgets per round of libvirt calls
 * ({@code rpcBudget}) and per fetch ({@code transferBudget}), and a span per operation
 * ({@link Kvm2Telemetry}). Safe for concurrent use.
 */
public final class Kvm2Provider extends InstanceEngine<Kvm2Image> {
    private final Kvm2Telemetry telemetry;

    /**
     * The provider of one configured entry. Does no I/O: hosts are dialled on first use through
     * {@code dialer}, once for each host's pooled connection and once per image fetch.
     *
     * @param context the clock, OpenTelemetry, the HTTP client for image fetches, the progress reporter
     */
    public Kvm2Provider(String entry, Kvm2Config config, ProviderContext context, HostDialer dialer) {
        this(entry, config, context, dialer, new Kvm2Telemetry(context.openTelemetry(), entry),
                new HostPool(dialer, config.sshAccess().dialTimeout(), Optional.of(config.rpcBudget())));
    }

    private Kvm2Provider(String entry, Kvm2Config config, ProviderContext context, HostDialer dialer,
                         Kvm2Telemetry telemetry, HostPool hosts) {
        super(new EntrySettings(entry, config.hosts(), config.machineTypes(), config.diskSizeGb(),
                config.vendorData(), config.claimsHost(), config.claimTimeout()), hosts, images(entry, config, context, dialer, telemetry, hosts), context.clock());
        this.telemetry = telemetry;
    }

    private static DigestPinnedImages images(String entry, Kvm2Config config, ProviderContext context,
                                             HostDialer dialer, Kvm2Telemetry telemetry, HostPool hosts) {
        Duration dialTimeout = config.sshAccess().dialTimeout();
        BaseImageDiscard discard = new BaseImageDiscard(hosts, config.rpcBudget());
        ImageFetcher fetcher = new ImageFetcher(context::httpClient, context.progress(),
                TransferBudget.of(config.transferBudget()), config.imageIdleTimeout());
        HostImageFetcher hostFetcher = new HostImageFetcher(TransferBudget.of(config.transferBudget()),
                config.imageIdleTimeout());
        BaseImageTransfer transfer = new BaseImageTransfer(fetcher, hostFetcher,
                () -> new HostPool(dialer, dialTimeout, Optional.empty()), config.transferBudget(), discard);
        return new DigestPinnedImages(new ImageCatalogue(entry, config.images(), config.fetchLocation()),
                config.hosts(), hosts, fetcher, new HostSideFetch(hostFetcher), config.rpcBudget(),
                new PoolSpace(config.diskSizeGb()), transfer, discard, telemetry);
    }

    /**
     * {@inheritDoc}
     *
     * <p>The first create of an image on a host fetches it within the deadline and the transfer
     * budget; concurrent creates wait for that fetch. One that would not fit into the pool is
     * QUOTA_EXCEEDED before anything is written.
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

    @Override
    public List<Instance> listManaged(String zone, Deadline deadline) {
        return telemetry.inSpan("kvm2.listManaged", Attributes.of(Kvm2Telemetry.HOST, zone),
                () -> super.listManaged(zone, deadline));
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

package dev.egressproxies.kvm2;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.Placement;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.config.MachineSize;
import dev.egressproxies.kvm.common.image.ImageSource;
import dev.egressproxies.kvm.common.testing.FakeLibvirtHost;
import dev.egressproxies.kvm.common.testing.FakeLinkDialer;
import dev.egressproxies.kvm.common.testing.ImageServer;
import dev.egressproxies.kvm.common.testing.Requests;
import dev.egressproxies.kvm.common.testing.TestBytes;
import dev.egressproxies.kvm.common.testing.TestProviderContext;
import dev.egressproxies.kvm2.config.CatalogueImage;
import dev.egressproxies.kvm2.config.Kvm2Config;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * A {@link Kvm2Provider} on fake hosts reached through kvm-common's real connection pool (with a
 * {@link FakeLinkDialer}), a loopback image server, and an OpenTelemetry SDK whose spans end up in
 * an in-memory exporter: the set-up every kvm2 test starts from.
 *
 * <p>The catalogue holds {@value #IMAGE} (qcow2, BIOS, its sha256 pinned) served at
 * {@value #IMAGE_PATH}; its base volume is {@link #baseVolume} ({@code ENTRY+KEY.SOURCE.base.qcow2},
 * where SOURCE depends on the server's port) and its marker {@link #marker}.
 */
final class Kvm2Fixture implements AutoCloseable {
    static final String ENTRY = "kvm2-test";
    static final String POOL = "egress-test";
    static final String BRIDGE = "br-test";
    static final String IMAGE = "debian-12";
    static final String IMAGE_PATH = "/images/debian-12.qcow2";
    static final byte[] IMAGE_BYTES = TestBytes.pattern(192 * 1024 + 7);
    static final String IMAGE_SHA256 = TestBytes.sha256(IMAGE_BYTES);
    static final Duration RPC_BUDGET = Duration.ofSeconds(10);

    final ImageServer server;
    final InMemorySpanExporter spans = InMemorySpanExporter.create();
    final OpenTelemetrySdk openTelemetry = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
            .build();
    final TestProviderContext context = new TestProviderContext(openTelemetry);
    final FakeLibvirtHost host = new FakeLibvirtHost("host-1").withPool(POOL);
    final FakeLinkDialer dialer = new FakeLinkDialer().with(host);
    final Kvm2Config config;
    final Kvm2Provider provider;
    /** The entry's name. */
    final String entry;
    /** The base volume of {@value #IMAGE}. */
    final String baseVolume;
    /** Its marker. */
    final String marker;

    private Kvm2Fixture(UnaryOperator<Settings> adjust) {
        try {
            server = new ImageServer().serve(IMAGE_PATH, IMAGE_BYTES);
        } catch (IOException failed) {
            throw new UncheckedIOException(failed);
        }
        Settings settings = adjust.apply(new Settings(ENTRY, new LinkedHashMap<>(Map.of(IMAGE,
                new CatalogueImage(server.url(IMAGE_PATH), null, IMAGE_SHA256, null, null, null, "bios"))), 10,
                Duration.ofMinutes(5)));
        config = new Kvm2Config(List.of(new HostSettings("host-1", "127.0.0.1", 2222, "root", null, POOL, BRIDGE,
                "qemu", null, null, null, null)), Map.of("small", new MachineSize(1, 512)), settings.images(),
                settings.diskSizeGb(), null, Path.of("/nonexistent/id_ed25519"), Path.of("/nonexistent/known_hosts"),
                null, null, null, RPC_BUDGET, settings.transferBudget(), null, null, null, null);
        provider = new Kvm2Provider(settings.entry(), config, context, dialer);
        entry = settings.entry();
        baseVolume = baseVolume(IMAGE);
        marker = baseVolume + ".sha256";
    }

    /**
     * Another provider of this entry on the same host whose catalogue image {@code key} is
     * {@code image} instead, as after the operator edited the config; closed by the caller.
     */
    Kvm2Provider providerWithImage(String key, CatalogueImage image) {
        Map<String, CatalogueImage> images = new LinkedHashMap<>(config.images());
        images.put(key, image);
        return new Kvm2Provider(entry, new Kvm2Config(config.hosts(), config.machineTypes(), images,
                config.diskSizeGb(), config.vendorData(), config.sshKeyFile(), config.knownHostsFile(),
                config.insecureIgnoreHostKey(), config.handshakeTimeout(), config.keepaliveInterval(),
                config.rpcBudget(), config.transferBudget(), config.imageIdleTimeout(), null, null, null), context, dialer);
    }

    /** The base volume of catalogue image {@code key} of this entry. */
    String baseVolume(String key) {
        return BaseVolumeNames.base(entry, key, config.images().get(key).source());
    }

    /** The base volume of an image given by its URL. */
    String urlBaseVolume(String url) {
        return BaseVolumeNames.base(entry, BaseVolumeNames.URL_KEY, ImageSource.builder(url).build());
    }

    /** What the marker of catalogue image {@code key} holds once its published file, of {@code sha256}, is cached. */
    String markerText(String key, String sha256) {
        ImageSource source = config.images().get(key).source();
        return sha256 + "\nsource=" + source.identitySha256() + " " + source + "\n";
    }

    /** What tests may change about the entry. */
    record Settings(String entry, Map<String, CatalogueImage> images, int diskSizeGb, Duration transferBudget) {
        Settings withEntry(String name) {
            return new Settings(name, images, diskSizeGb, transferBudget);
        }

        Settings withImage(String key, CatalogueImage image) {
            Map<String, CatalogueImage> more = new LinkedHashMap<>(images);
            more.put(key, image);
            return new Settings(entry, more, diskSizeGb, transferBudget);
        }

        Settings withPinnedDigest(String sha256) {
            CatalogueImage current = images.get(IMAGE);
            return withImage(IMAGE, new CatalogueImage(current.url(), current.format(), sha256, current.compression(),
                    current.archive(), current.archiveMember(), current.firmware()));
        }

        Settings withDiskSizeGb(int size) {
            return new Settings(entry, images, size, transferBudget);
        }

        Settings withTransferBudget(Duration budget) {
            return new Settings(entry, images, diskSizeGb, budget);
        }
    }

    /** The standard fixture. */
    static Kvm2Fixture standard() {
        return new Kvm2Fixture(settings -> settings);
    }

    /** A fixture whose entry is adjusted. */
    static Kvm2Fixture with(UnaryOperator<Settings> adjust) {
        return new Kvm2Fixture(adjust);
    }

    /** A valid request for {@code name} on host-1, machine type small, image {@code image}. */
    static CreateRequest request(String name, String image) {
        return Requests.request(name, new Placement("host-1", "small", image));
    }

    /** Creates the instance from the catalogue image and returns its ID. */
    String create(String name) {
        return provider.create(request(name, IMAGE), Requests.deadline());
    }

    /** Puts a complete base of the catalogue image into the pool, as an earlier create would. */
    void cacheBaseImage() {
        host.putVolume(POOL, baseVolume, IMAGE_BYTES);
        host.putVolume(POOL, marker, markerText(IMAGE, IMAGE_SHA256).getBytes(StandardCharsets.US_ASCII));
    }

    /** The spans ended so far. */
    List<SpanData> spans() {
        return spans.getFinishedSpanItems();
    }

    /** The volumes in the pool. */
    List<String> volumes() {
        return host.volumeNames(POOL);
    }

    @Override
    public void close() {
        provider.close();
        server.close();
        openTelemetry.close();
    }
}

package dev.egressproxies.kvm;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.Placement;
import dev.egressproxies.kvm.common.testing.FakeHostFleet;
import dev.egressproxies.kvm.common.testing.FakeLibvirtHost;
import dev.egressproxies.kvm.common.testing.FakeLinkDialer;
import dev.egressproxies.kvm.common.testing.ImageServer;
import dev.egressproxies.kvm.common.testing.Requests;
import dev.egressproxies.kvm.common.testing.TestBytes;
import dev.egressproxies.kvm.common.testing.TestProviderContext;
import dev.egressproxies.kvm.config.KvmConfig;
import dev.egressproxies.kvm.config.KvmHost;
import dev.egressproxies.kvm.config.KvmImage;
import dev.egressproxies.kvm.config.MachineType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@link KvmProvider} on fake hosts, with a loopback image server: the set-up every behaviour test
 * starts from. Hosts are {@code host-1}, {@code host-2}, ... each with the pool {@value #POOL};
 * images are {@value #IMAGE} (qcow2) and {@value #RAW_IMAGE} (raw), served by the server.
 */
final class KvmFixture implements AutoCloseable {
    static final String ENTRY = "kvm-test";
    static final String POOL = "egress-test";
    static final String BRIDGE = "br-test";
    static final String IMAGE = "debian-12";
    static final String IMAGE_PATH = "/images/debian-12.qcow2";
    static final String RAW_IMAGE = "alpine-raw";
    static final String RAW_IMAGE_PATH = "/images/alpine.raw";
    static final byte[] IMAGE_BYTES = TestBytes.pattern(256 * 1024 + 17);

    final ImageServer server;
    final TestProviderContext context = new TestProviderContext();
    final FakeHostFleet fleet;
    final FakeLinkDialer connections;
    final List<FakeLibvirtHost> hosts;
    final KvmConfig config;
    final KvmProvider provider;
    /** The base volume of {@value #IMAGE}: named after its key and source, whose URL has the server's port. */
    final String baseVolume;
    /** Its completeness marker. */
    final String baseMarker;

    private KvmFixture(int hostCount, Map<String, KvmHost> hostOverrides) {
        try {
            server = new ImageServer().serve(IMAGE_PATH, IMAGE_BYTES).serve(RAW_IMAGE_PATH, IMAGE_BYTES);
        } catch (IOException failed) {
            throw new UncheckedIOException(failed);
        }
        fleet = new FakeHostFleet(hostCount, POOL);
        connections = fleet.dialer();
        hosts = fleet.hosts();
        List<KvmHost> hostConfigs = new ArrayList<>();
        for (int number = 1; number <= hostCount; number++) {
            String name = FakeHostFleet.name(number);
            hostConfigs.add(hostOverrides.getOrDefault(name, new KvmHost(name, "127.0.0.1", 2222, "root", null, POOL,
                    BRIDGE, "qemu", null, null, null, null, null)));
        }
        Map<String, MachineType> machineTypes = new LinkedHashMap<>();
        machineTypes.put("small", new MachineType(1, 512));
        machineTypes.put("large", new MachineType(4, 4096));
        Map<String, KvmImage> images = new LinkedHashMap<>();
        images.put(IMAGE, new KvmImage(server.url(IMAGE_PATH), null));
        images.put(RAW_IMAGE, new KvmImage(server.url(RAW_IMAGE_PATH), "raw"));
        // Claims on the last host: the tests of image fetches count the calls on the first one.
        config = new KvmConfig(hostConfigs, machineTypes, images, 10, null, Path.of("/nonexistent/id_ed25519"),
                Path.of("/nonexistent/known_hosts"), null, null, null, null, null, null, null,
                FakeHostFleet.name(hostCount), null);
        provider = new KvmProvider(ENTRY, config, context, connections);
        baseVolume = baseVolume(IMAGE);
        baseMarker = baseVolume + ".complete";
    }

    /** The base volume of configured image {@code key}. */
    String baseVolume(String key) {
        return BaseVolumeNames.base(key, config.images().get(key));
    }

    /** A fixture with one host. */
    static KvmFixture oneHost() {
        return new KvmFixture(1, Map.of());
    }

    /** A fixture with {@code count} hosts. */
    static KvmFixture hosts(int count) {
        return new KvmFixture(count, Map.of());
    }

    /** A fixture with one host configured as given (its name must be host-1). */
    static KvmFixture withHost(KvmHost host) {
        return new KvmFixture(1, Map.of(host.name(), host));
    }

    /** The first host. */
    FakeLibvirtHost host() {
        return hosts.get(0);
    }

    /** A valid request for {@code name} on host-1, machine type small, image debian-12. */
    static CreateRequest request(String name) {
        return Requests.request(name, new Placement("host-1", "small", IMAGE));
    }


    /** Puts the debian-12 base volume and its completeness marker into host-1's pool, as an earlier create would. */
    void cacheBaseImage() {
        host().putVolume(POOL, baseVolume, IMAGE_BYTES);
        host().putVolume(POOL, baseMarker, new byte[1]);
    }

    /**
     * Another provider of this entry on the same hosts, whose image {@value #IMAGE} is downloaded
     * from {@code url} instead; closed with the fixture.
     */
    KvmProvider providerWithImageAt(String url) {
        return new KvmProvider(ENTRY, new KvmConfig(config.hosts(), config.machineTypes(),
                Map.of(IMAGE, new KvmImage(url, null)), null, null, config.sshKeyFile(), config.knownHostsFile(), null,
                null, null, null, null, null, null, config.claimsHost(), null), context, connections);
    }

    /** Creates the instance on host-1 and returns its ID. */
    String create(String name) {
        return provider.create(request(name), Requests.deadline());
    }

    @Override
    public void close() {
        provider.close();
        server.close();
    }
}

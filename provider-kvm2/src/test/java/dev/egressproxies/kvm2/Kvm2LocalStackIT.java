package dev.egressproxies.kvm2;

import static dev.egressproxies.kvm.common.testing.Requests.catchProviderException;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.InstanceState;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.config.MachineSize;
import dev.egressproxies.kvm.common.instance.PoolLeases;
import dev.egressproxies.kvm.common.instance.HostPool;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StoragePool;
import dev.egressproxies.kvm.common.local.LocalSocketDialer;
import dev.egressproxies.kvm.common.testing.ImageServer;
import dev.egressproxies.kvm.common.testing.InstanceVolumes;
import dev.egressproxies.kvm.common.testing.Requests;
import dev.egressproxies.kvm.common.testing.TestBytes;
import dev.egressproxies.kvm.common.testing.TestProviderContext;
import dev.egressproxies.kvm.common.teststack.Leftovers;
import dev.egressproxies.kvm.common.teststack.TestStack;
import dev.egressproxies.kvm2.config.CatalogueImage;
import dev.egressproxies.kvm2.config.Kvm2Config;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The kvm2 backend on the real local libvirtd of scripts/test-stack.sh, reached through
 * kvm-common's local socket dialer (the path a call takes through an SSH tunnel, with the relay
 * standing in for the tunnel): the stack's small qcow2 served by a loopback HTTP server, plain and
 * gzip-compressed, into the stack's dir pool. Nothing made here is left behind.
 */
@Timeout(180)
class Kvm2LocalStackIT {
    private static final TestStack STACK = TestStack.load();

    private final String suffix = HexFormat.of().formatHex(randomBytes());
    private final String entry = TestStack.NAME_PREFIX + "kvm2-" + suffix;
    private final Leftovers leftovers = new Leftovers();
    private final HostPool cleanup = new HostPool(new LocalSocketDialer());
    private final HostSettings host = new HostSettings("local", "localhost", null, null,
            STACK.libvirtSocket().toString(), STACK.pool(), STACK.bridge(), STACK.domainType().xmlName(), null, null,
            null, null);
    private ImageServer server;
    private byte[] image;
    private byte[] gzipped;
    private Kvm2Provider provider;
    private Map<String, CatalogueImage> images;

    @BeforeEach
    void start() throws Exception {
        image = Files.readAllBytes(STACK.qcow2Image());
        gzipped = gzip(image);
        server = new ImageServer().serve("/stack.qcow2", image).serve("/stack.qcow2.gz", gzipped);
        images = new LinkedHashMap<>();
        images.put("plain", new CatalogueImage(server.url("/stack.qcow2"), null, TestBytes.sha256(image), null, null,
                null, "bios"));
        images.put("gz", new CatalogueImage(server.url("/stack.qcow2.gz"), null, TestBytes.sha256(gzipped), null,
                null, null, "bios"));
        images.put("pinned-wrong", new CatalogueImage(server.url("/stack.qcow2"), null, "0".repeat(64), null, null,
                null, "bios"));
        Kvm2Config config = new Kvm2Config(List.of(host), Map.of("small", new MachineSize(1, 256)), images, 1, null,
                Path.of("/unused/id_ed25519"), null, true, null, null, Duration.ofSeconds(60), Duration.ofMinutes(2), null, null, null, null);
        provider = new Kvm2Provider(entry, config, new TestProviderContext(), new LocalSocketDialer());
        for (String key : images.keySet()) {
            String base = base(key);
            leftovers.volume(base);
            leftovers.volume(BaseVolumeNames.marker(base));
            leftovers.volume(PoolLeases.volumeName(base));
        }
    }

    @AfterEach
    void removeWhatTheTestMade() {
        provider.close();
        server.close();
        cleanup.call(host, Requests.call(), libvirt -> {
            leftovers.removeAll(libvirt, STACK.pool());
            return null;
        });
        cleanup.close();
    }

    @Test
    void createsAVmFromAFetchedImageGetsListsAndDeletesIt() {
        String name = instance("vm");

        String id = provider.create(Requests.request(name, new Placement("local", "small", "plain")),
                Requests.deadline());
        Instance created = provider.get(id, Requests.deadline());
        List<Instance> managed = provider.listManaged(Requests.deadline());

        assertThat(id).isEqualTo("local/" + name);
        assertThat(created.state()).as("no address appears in this sandbox").isIn(InstanceState.PROVISIONING,
                InstanceState.RUNNING);
        assertThat(managed).extracting(Instance::id).contains(id);
        String base = base("plain");
        assertThat(new String(volume(BaseVolumeNames.marker(base), 1024), StandardCharsets.US_ASCII))
                .startsWith(TestBytes.sha256(image) + "\nsource=" + images.get("plain").source().identitySha256());
        assertThat(volume(base, image.length + 1024)).isEqualTo(image);
        assertThat(volumeExists(PoolLeases.volumeName(base))).as("the fetch lease, removed after the marker")
                .isFalse();

        provider.delete(id, Requests.deadline());

        assertThat(catchProviderException(() -> provider.get(id, Requests.deadline())).kind())
                .isEqualTo(ErrorKind.NOT_FOUND);
        assertThat(volumeExists(InstanceVolumes.overlay(entry, name))).isFalse();
        assertThat(volumeExists(InstanceVolumes.seed(entry, name))).isFalse();
        assertThat(volumeExists(base)).as("the base stays for later VMs").isTrue();
    }

    @Test
    void aCompressedImageIsDecompressedIntoABaseOfExactlyTheImage() {
        String name = instance("gz");

        String id = provider.create(Requests.request(name, new Placement("local", "small", "gz")),
                Requests.deadline());

        String base = base("gz");
        assertThat(volume(base, image.length + 1024)).isEqualTo(image);
        assertThat(new String(volume(BaseVolumeNames.marker(base), 1024), StandardCharsets.US_ASCII))
                .startsWith(TestBytes.sha256(gzipped) + "\n");
        provider.delete(id, Requests.deadline());
    }

    @Test
    void bytesThatAreNotThePinnedDigestLeaveNoBaseAndNoMarker() {
        String name = instance("wrong");

        ProviderException error = catchProviderException(() -> provider.create(
                Requests.request(name, new Placement("local", "small", "pinned-wrong")), Requests.deadline()));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        String base = base("pinned-wrong");
        assertThat(volumeExists(base)).isFalse();
        assertThat(volumeExists(BaseVolumeNames.marker(base))).isFalse();
    }

    private String base(String key) {
        return BaseVolumeNames.base(entry, key, images.get(key).source());
    }

    private String instance(String what) {
        String name = TestStack.NAME_PREFIX + "kvm2-" + what + "-" + suffix;
        leftovers.domain(name);
        leftovers.volume(InstanceVolumes.overlay(entry, name));
        leftovers.volume(InstanceVolumes.seed(entry, name));
        return name;
    }

    private byte[] volume(String name, int maximum) {
        return cleanup.call(host, Requests.call(), libvirt -> {
            StoragePool pool = libvirt.lookupPool(STACK.pool()).orElseThrow();
            return libvirt.downloadVolume(libvirt.lookupVolume(pool, name).orElseThrow(), maximum);
        });
    }

    private boolean volumeExists(String name) {
        return cleanup.call(host, Requests.call(), libvirt -> libvirt.lookupVolume(
                libvirt.lookupPool(STACK.pool()).orElseThrow(), name).isPresent());
    }

    private static byte[] randomBytes() {
        byte[] random = new byte[3];
        ThreadLocalRandom.current().nextBytes(random);
        return random;
    }

    private static byte[] gzip(byte[] content) throws Exception {
        ByteArrayOutputStream compressed = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(compressed)) {
            out.write(content);
        }
        return compressed.toByteArray();
    }
}

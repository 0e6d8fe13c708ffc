package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.Placement;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.config.MachineSize;
import dev.egressproxies.kvm.common.seed.NoCloudSeed;
import dev.egressproxies.kvm.common.testing.FakeHostFleet;
import dev.egressproxies.kvm.common.testing.FakeLibvirtHost;
import dev.egressproxies.kvm.common.testing.FakeLinkDialer;
import dev.egressproxies.kvm.common.testing.InstanceVolumes;
import dev.egressproxies.kvm.common.testing.Requests;
import dev.egressproxies.kvm.common.testing.TestProviderContext;
import dev.egressproxies.kvm.common.xml.DiskFormat;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An {@link InstanceEngine} on fake hosts with {@link PresetBaseImages}: the set-up every engine
 * test starts from. Hosts are {@code host-1}, {@code host-2}, ... each with the pool {@value #POOL};
 * images are {@value #IMAGE} (qcow2, BIOS), {@value #RAW_IMAGE} (raw, BIOS) and
 * {@value #UEFI_IMAGE} (qcow2, UEFI).
 */
final class EngineFixture implements AutoCloseable {
    static final String ENTRY = "kvm-test";
    /** The entry of {@link #engineOfEntry} in the tests of entries sharing hosts. */
    static final String OTHER_ENTRY = "kvm2-test";
    static final String POOL = "egress-test";
    static final String BRIDGE = "br-test";
    static final String IMAGE = "debian-12";
    static final String RAW_IMAGE = "alpine-raw";
    static final String UEFI_IMAGE = "debian-12-uefi";
    static final String BASE_VOLUME = "debian-12.base.qcow2";
    static final byte[] IMAGE_BYTES = "a qcow2 image, as far as the fake can tell".getBytes();

    final TestProviderContext context = new TestProviderContext();
    final FakeHostFleet fleet;
    final FakeLinkDialer connections;
    final List<FakeLibvirtHost> hosts;
    final EntrySettings settings;
    /** The host pool every engine of the fixture shares. */
    final HostPool caller;
    final PresetBaseImages images;
    final InstanceEngine<PresetBaseImages.Image> engine;
    private final Map<String, PresetBaseImages.Image> presets = new LinkedHashMap<>();
    private final List<InstanceEngine<PresetBaseImages.Image>> otherEntries = new ArrayList<>();

    private EngineFixture(int hostCount, Map<String, HostSettings> hostOverrides) {
        fleet = new FakeHostFleet(hostCount, POOL);
        connections = fleet.dialer();
        hosts = fleet.hosts();
        List<HostSettings> hostSettings = new ArrayList<>();
        for (int number = 1; number <= hostCount; number++) {
            String name = FakeHostFleet.name(number);
            hostSettings.add(hostOverrides.getOrDefault(name, new HostSettings(name, "127.0.0.1", 2222, "root", null,
                    POOL, BRIDGE, "qemu", null, null, null, null)));
        }
        Map<String, MachineSize> machineTypes = new LinkedHashMap<>();
        machineTypes.put("small", new MachineSize(1, 512));
        machineTypes.put("large", new MachineSize(4, 4096));
        presets.put(IMAGE, new PresetBaseImages.Image(IMAGE, DiskFormat.QCOW2, false, IMAGE_BYTES));
        presets.put(RAW_IMAGE, new PresetBaseImages.Image(RAW_IMAGE, DiskFormat.RAW, false, IMAGE_BYTES));
        presets.put(UEFI_IMAGE, new PresetBaseImages.Image(UEFI_IMAGE, DiskFormat.QCOW2, true, IMAGE_BYTES));
        settings = new EntrySettings(ENTRY, hostSettings, machineTypes, 10, NoCloudSeed.DEFAULT_VENDOR_DATA);
        caller = new HostPool(connections);
        images = new PresetBaseImages(presets, caller);
        engine = new InstanceEngine<>(settings, caller, images, context.clock()) {
        };
    }

    /** A fixture with one host. */
    static EngineFixture oneHost() {
        return new EngineFixture(1, Map.of());
    }

    /** A fixture with {@code count} hosts. */
    static EngineFixture hosts(int count) {
        return new EngineFixture(count, Map.of());
    }

    /** A fixture with one host configured as given (its name must be host-1). */
    static EngineFixture withHost(HostSettings host) {
        return new EngineFixture(1, Map.of(host.name(), host));
    }

    /**
     * The engine of another provider entry, {@code entry}, configured like the fixture's and
     * placing its domains on the same hosts; closed with the fixture.
     */
    InstanceEngine<PresetBaseImages.Image> engineOfEntry(String entry) {
        InstanceEngine<PresetBaseImages.Image> other = new InstanceEngine<>(new EntrySettings(entry, settings.hosts(),
                settings.machineTypes(), settings.diskSizeGb(), settings.vendorData()), caller,
                new PresetBaseImages(presets, caller), context.clock()) {
        };
        otherEntries.add(other);
        return other;
    }

    /** The first host. */
    FakeLibvirtHost host() {
        return hosts.get(0);
    }

    /** The overlay volume of instance {@code name} of the fixture's entry. */
    static String overlay(String name) {
        return InstanceVolumes.overlay(ENTRY, name);
    }

    /** The seed volume of instance {@code name} of the fixture's entry. */
    static String seed(String name) {
        return InstanceVolumes.seed(ENTRY, name);
    }

    /** A valid request for {@code name} on host-1, machine type small, image debian-12. */
    static CreateRequest request(String name) {
        return Requests.request(name, new Placement("host-1", "small", IMAGE));
    }


    /** Puts the debian-12 base volume into host-1's pool, as an earlier create would. */
    void cacheBaseImage() {
        host().putVolume(POOL, BASE_VOLUME, IMAGE_BYTES);
    }

    /** The volumes in host-1's pool now, by name; a copy the caller may change. */
    Map<String, FakeLibvirtHost.VolumeRecord> volumes() {
        Map<String, FakeLibvirtHost.VolumeRecord> volumes = new LinkedHashMap<>();
        host().volumeNames(POOL).forEach(name -> volumes.put(name, host().volume(POOL, name)));
        return volumes;
    }

    /** Creates the instance on host-1 and returns its ID. */
    String create(String name) {
        return engine.create(request(name), Requests.deadline());
    }

    @Override
    public void close() {
        otherEntries.forEach(InstanceEngine::close);
        engine.close();
    }
}

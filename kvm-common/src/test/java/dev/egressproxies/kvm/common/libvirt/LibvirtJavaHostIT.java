package dev.egressproxies.kvm.common.libvirt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.egressproxies.kvm.common.libvirt.LibvirtHost.AddressSource;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.Domain;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.DomainState;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.HostInfo;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.InterfaceAddress;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.PoolInfo;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StoragePool;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StorageVolume;
import dev.egressproxies.kvm.common.seed.NoCloudSeed;
import dev.egressproxies.kvm.common.teststack.Leftovers;
import dev.egressproxies.kvm.common.teststack.TestStack;
import dev.egressproxies.kvm.common.xml.DiskFormat;
import dev.egressproxies.kvm.common.xml.DomainCapabilities;
import dev.egressproxies.kvm.common.xml.DomainDefinition;
import dev.egressproxies.kvm.common.xml.DomainXml;
import dev.egressproxies.kvm.common.xml.HostPlatform;
import dev.egressproxies.kvm.common.xml.InstanceMetadata;
import dev.egressproxies.kvm.common.xml.VolumeXml;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link LibvirtJavaHost} against the real local libvirtd ({@code qemu:///system}) of the test
 * stack: every adapter method, with libvirt's own error codes arriving mapped.
 */
@Timeout(120)
class LibvirtJavaHostIT {
    private static final TestStack STACK = TestStack.load();
    private static final Instant CREATED = Instant.parse("2024-05-06T07:08:09Z");
    private static final String ENTRY = "lab-it";

    private static LibvirtJavaHost libvirt;
    private static StoragePool pool;

    private final Leftovers leftovers = new Leftovers();

    @BeforeAll
    static void connect() {
        libvirt = LibvirtJavaHost.connect("qemu:///system");
        pool = libvirt.lookupPool(STACK.pool()).orElseThrow(() -> new AssertionError("the stack's pool "
                + STACK.pool() + " is missing; run 'scripts/test-stack.sh up' as root"));
    }

    @AfterAll
    static void disconnect() {
        libvirt.close();
    }

    @AfterEach
    void removeWhatTheTestMade() {
        leftovers.removeAll(libvirt, STACK.pool());
    }

    @Nested
    class Host {
        @Test
        void describesItself() {
            HostInfo info = libvirt.hostInfo();

            assertThat(info.hypervisor()).isEqualTo("QEMU");
            assertThat(info.libvirtVersion()).matches("\\d+\\.\\d+\\.\\d+");
            assertThat(info.hostname()).isNotBlank();
            assertThat(libvirt.isAlive()).isTrue();
        }

        @Test
        void reportsItsDomainCapabilitiesAndRefusesADomainTypeItDoesNotOffer() {
            DomainCapabilities offered = DomainCapabilities.parse(libvirt.domainCapabilities("qemu"));

            assertThat(offered.machine()).isNotBlank();
            assertThat(offered.cpuModes()).contains("custom");
            LibvirtException refused = catchThrowableOfType(LibvirtException.class,
                    () -> libvirt.domainCapabilities("xen"));
            assertThat(refused.code()).isIn(LibvirtErrorCode.CONFIG_UNSUPPORTED, LibvirtErrorCode.INVALID_ARGUMENT);
            assertThat(refused.isTransportFailure()).isFalse();
            assertThat(libvirt.isAlive()).isTrue();
        }

        @Test
        void findsTheStacksBridgeAndNotAMissingOne() {
            assertThat(libvirt.hasInterface(STACK.bridge())).isTrue();
            assertThat(libvirt.hasInterface("nosuchbr0")).isFalse();
        }

        @Test
        void describesThePoolAndKnowsWhenOneIsMissing() {
            PoolInfo info = libvirt.poolInfo(pool);

            assertThat(info.running()).isTrue();
            assertThat(info.capacityBytes()).isPositive();
            assertThat(info.availableBytes()).isPositive().isLessThanOrEqualTo(info.capacityBytes());
            assertThat(libvirt.lookupPool(TestStack.uniqueName("no-pool"))).isEmpty();
            libvirt.refreshPool(pool);
        }

        @Test
        void aMissingDomainIsEmpty() {
            assertThat(libvirt.lookupDomain(TestStack.uniqueName("absent"))).isEmpty();
        }

        @Test
        void refusesHandlesOfAnotherConnection() {
            try (LibvirtJavaHost other = LibvirtJavaHost.connect("qemu:///system")) {
                StoragePool foreign = other.lookupPool(STACK.pool()).orElseThrow();

                assertThatThrownBy(() -> libvirt.poolInfo(foreign)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("not made by this connection");
            }
        }

        @Test
        void aClosedConnectionRefusesCallsAsATransportFailure() {
            LibvirtJavaHost closing = LibvirtJavaHost.connect("qemu:///system");
            closing.closeWhenIdle().join();

            LibvirtException failure = catchThrowableOfType(LibvirtException.class, closing::hostInfo);

            assertThat(failure.code()).isEqualTo(LibvirtErrorCode.NO_CONNECT);
            assertThat(failure.isTransportFailure()).isTrue();
            assertThat(closing.isAlive()).isFalse();
        }
    }

    @Nested
    class Volumes {
        @Test
        void uploadsAndDownloadsBinaryDataByteForByte() {
            byte[] data = new byte[3 * 1024 * 1024 + 17];
            new Random(4).nextBytes(data);
            // Zero runs, where a C-string transfer would stop.
            data[0] = 0;
            data[1024] = 0;
            String name = leftovers.volume(TestStack.uniqueName("raw"));

            StorageVolume volume = libvirt.createVolume(pool, VolumeXml.raw(name, data.length));
            libvirt.uploadVolume(volume, new ByteArrayInputStream(data), data.length);

            assertThat(volume.name()).isEqualTo(name);
            assertThat(volume.path()).isEqualTo(STACK.poolFolder().resolve(name).toString());
            assertThat(libvirt.downloadVolume(volume, data.length)).isEqualTo(data);
            assertThat(libvirt.downloadVolume(volume, 1000)).isEqualTo(java.util.Arrays.copyOf(data, 1000));
            assertThat(libvirt.downloadVolume(volume, 0)).isEmpty();
        }

        @Test
        void anUploadUntilTheEndGrowsAOneByteVolumeToExactlyTheData() throws IOException {
            byte[] data = new byte[3 * 1024 * 1024 + 17];
            new Random(5).nextBytes(data);
            String name = leftovers.volume(TestStack.uniqueName("to-end"));
            StorageVolume volume = libvirt.createVolume(pool, VolumeXml.raw(name, 1));

            libvirt.uploadVolumeUntilEnd(volume, new ByteArrayInputStream(data));
            libvirt.refreshPool(pool);

            assertThat(Files.size(Path.of(volume.path()))).isEqualTo(data.length);
            assertThat(libvirt.downloadVolume(volume, data.length + 100)).isEqualTo(data);
        }

        @Test
        void anUploadUntilTheEndKeepsBytesPastTheDataInALargerVolume() throws IOException {
            String name = leftovers.volume(TestStack.uniqueName("larger"));
            StorageVolume volume = libvirt.createVolume(pool, VolumeXml.raw(name, 8192));

            libvirt.uploadVolumeUntilEnd(volume, new ByteArrayInputStream(new byte[] {1, 2, 3}));

            // Why the image volume is created with one byte: the file keeps its size.
            assertThat(Files.size(Path.of(volume.path()))).isEqualTo(8192);
        }

        @Test
        void aFailingSourceAbortsAnUploadUntilTheEnd() {
            String name = leftovers.volume(TestStack.uniqueName("to-end-failing"));
            StorageVolume volume = libvirt.createVolume(pool, VolumeXml.raw(name, 1));
            InputStream failing = new InputStream() {
                private int left = 100_000;

                @Override
                public int read() throws IOException {
                    if (left <= 0) {
                        throw new IOException("the image's digest is wrong");
                    }
                    left--;
                    return 7;
                }
            };

            assertThatThrownBy(() -> libvirt.uploadVolumeUntilEnd(volume, failing))
                    .isInstanceOf(UploadSourceException.class).hasMessageContaining("the image's digest is wrong");
            assertThat(libvirt.hostInfo()).isNotNull();
        }

        @Test
        void aDownloadIsCappedAtTheVolumeEnd() {
            byte[] data = "a marker digest".getBytes(StandardCharsets.US_ASCII);
            String name = leftovers.volume(TestStack.uniqueName("marker"));
            StorageVolume volume = libvirt.createVolume(pool, VolumeXml.raw(name, data.length));
            libvirt.uploadVolume(volume, new ByteArrayInputStream(data), data.length);

            assertThat(libvirt.downloadVolume(volume, 4096)).isEqualTo(data);
        }

        @Test
        void aShortSourceAbortsTheUploadAndLeavesTheConnectionUsable() {
            String name = leftovers.volume(TestStack.uniqueName("short"));
            StorageVolume volume = libvirt.createVolume(pool, VolumeXml.raw(name, 4096));

            assertThatThrownBy(() -> libvirt.uploadVolume(volume, new ByteArrayInputStream(new byte[100]), 4096))
                    .isInstanceOf(UploadSourceException.class).hasMessageContaining("after 100 of the 4096 bytes");

            assertThat(libvirt.lookupVolume(pool, name)).isPresent();
        }

        @Test
        void aFailingSourceAbortsTheUpload() {
            String name = leftovers.volume(TestStack.uniqueName("failing"));
            StorageVolume volume = libvirt.createVolume(pool, VolumeXml.raw(name, 4096));
            InputStream failing = new InputStream() {
                @Override
                public int read() throws IOException {
                    throw new IOException("connection reset by the image server");
                }
            };

            assertThatThrownBy(() -> libvirt.uploadVolume(volume, failing, 4096))
                    .isInstanceOf(UploadSourceException.class).hasMessageContaining("connection reset");
            assertThat(libvirt.hostInfo()).isNotNull();
        }

        @Test
        void creatingAnExistingVolumeFailsWithItsCode() {
            String name = leftovers.volume(TestStack.uniqueName("twice"));
            libvirt.createVolume(pool, VolumeXml.raw(name, 512));

            LibvirtException failure = catchThrowableOfType(LibvirtException.class,
                    () -> libvirt.createVolume(pool, VolumeXml.raw(name, 512)));

            assertThat(failure.code()).isEqualTo(LibvirtErrorCode.STORAGE_VOLUME_EXISTS);
            assertThat(failure.rawCode()).isEqualTo(90);
            assertThat(failure.isTransportFailure()).isFalse();
        }

        @Test
        void lookupFindsAVolumeUntilItIsDeleted() {
            String name = leftovers.volume(TestStack.uniqueName("lookup"));
            StorageVolume created = libvirt.createVolume(pool, VolumeXml.raw(name, 512));

            StorageVolume found = libvirt.lookupVolume(pool, name).orElseThrow();
            assertThat(found.path()).isEqualTo(created.path());
            libvirt.deleteVolume(found);

            assertThat(libvirt.lookupVolume(pool, name)).isEmpty();
            LibvirtException failure = catchThrowableOfType(LibvirtException.class, () -> libvirt.deleteVolume(found));
            assertThat(failure.code()).isEqualTo(LibvirtErrorCode.NO_STORAGE_VOLUME);
        }

        @Test
        void createsAQcow2OverlayOnAnUploadedBase() throws Exception {
            byte[] image = Files.readAllBytes(STACK.qcow2Image());
            String baseName = leftovers.volume(TestStack.uniqueName("base.qcow2"));
            String overlayName = leftovers.volume(TestStack.uniqueName("overlay.qcow2"));

            StorageVolume base = libvirt.createVolume(pool, VolumeXml.image(baseName, DiskFormat.QCOW2, image.length));
            libvirt.uploadVolume(base, new ByteArrayInputStream(image), image.length);
            libvirt.refreshPool(pool);
            StorageVolume overlay = libvirt.createVolume(pool,
                    VolumeXml.overlay(overlayName, 1, base.path(), DiskFormat.QCOW2));

            String info = qemuImgInfo(Path.of(overlay.path()));
            assertThat(info).contains("\"format\": \"qcow2\"")
                    .contains("\"backing-filename\": \"" + base.path() + "\"")
                    .contains("\"virtual-size\": " + (1L << 30));
            assertThat(libvirt.listVolumeNames(pool)).contains(baseName, overlayName);
            assertThat(VolumeXml.backingPath(libvirt.volumeXml(overlay))).as("the overlay's backing store")
                    .contains(base.path());
            assertThat(VolumeXml.backingPath(libvirt.volumeXml(base))).as("the base's").isEmpty();
        }
    }

    @Nested
    class Domains {
        @Test
        void definesStartsInspectsStopsAndUndefinesADomain() throws Exception {
            String name = leftovers.domain(TestStack.uniqueName("vm"));
            String xml = DomainXml.of(definition(name));

            Domain domain = libvirt.defineDomain(xml);
            assertThat(domain.name()).isEqualTo(name);
            assertThat(libvirt.lookupDomain(name)).map(Domain::name).hasValue(name);
            assertThat(libvirt.domainState(domain)).isEqualTo(DomainState.SHUTOFF);
            assertThat(libvirt.listAllDomains()).extracting(Domain::name).contains(name);

            String metadata = libvirt.domainMetadata(domain, InstanceMetadata.NAMESPACE).orElseThrow();
            assertThat(InstanceMetadata.parse(metadata)).isEqualTo(new InstanceMetadata("uid-" + name, CREATED, ENTRY));
            assertThat(libvirt.domainMetadata(domain, "https://example.invalid/other")).isEmpty();

            libvirt.startDomain(domain);
            assertThat(libvirt.domainState(domain)).isEqualTo(DomainState.RUNNING);
            LibvirtException secondStart = catchThrowableOfType(LibvirtException.class,
                    () -> libvirt.startDomain(domain));
            assertThat(secondStart.code()).isEqualTo(LibvirtErrorCode.OPERATION_INVALID);

            libvirt.destroyDomain(domain);
            assertThat(libvirt.domainState(domain)).isEqualTo(DomainState.SHUTOFF);
            LibvirtException secondDestroy = catchThrowableOfType(LibvirtException.class,
                    () -> libvirt.destroyDomain(domain));
            assertThat(secondDestroy.code()).isEqualTo(LibvirtErrorCode.OPERATION_INVALID);

            libvirt.undefineDomain(domain);
            assertThat(libvirt.lookupDomain(name)).isEmpty();
            LibvirtException gone = catchThrowableOfType(LibvirtException.class, () -> libvirt.domainState(domain));
            assertThat(gone.code()).isEqualTo(LibvirtErrorCode.NO_DOMAIN);
            assertThat(gone.rawCode()).isEqualTo(42);
            assertThat(gone.kind()).isEqualTo(dev.egressproxies.api.ErrorKind.NOT_FOUND);
        }

        @Test
        void addressSourcesFailWithLibvirtErrorsNotTransportFailures() {
            String name = leftovers.domain(TestStack.uniqueName("addresses"));
            Domain domain = libvirt.defineDomain(DomainXml.of(definition(name)));
            libvirt.startDomain(domain);

            // This sandbox's kernel answers libvirt's ARP query with "wrong nlmsg len".
            List<InterfaceAddress> fromArp = addressesOrError(domain, AddressSource.ARP);
            // No guest agent runs in a guest booted from an empty disk.
            LibvirtException agent = catchThrowableOfType(LibvirtException.class,
                    () -> libvirt.interfaceAddresses(domain, AddressSource.AGENT));
            // The bridge is not a libvirt network, so there are no leases.
            List<InterfaceAddress> fromLeases = libvirt.interfaceAddresses(domain, AddressSource.LEASE);

            assertThat(fromArp).isEmpty();
            assertThat(agent.code()).isEqualTo(LibvirtErrorCode.AGENT_UNRESPONSIVE);
            assertThat(agent.isTransportFailure()).isFalse();
            assertThat(fromLeases).isEmpty();
            assertThat(libvirt.isAlive()).isTrue();
        }

        @Test
        void badDomainXmlFailsWithTheXmlCodesAsAPermanentError() {
            LibvirtException malformed = catchThrowableOfType(LibvirtException.class,
                    () -> libvirt.defineDomain("<domain type='kvm'><name>x</name>"));
            LibvirtException incomplete = catchThrowableOfType(LibvirtException.class,
                    () -> libvirt.defineDomain("<domain type='kvm'><name>x</name></domain>"));

            assertThat(malformed.code()).isEqualTo(LibvirtErrorCode.XML_DETAIL);
            assertThat(malformed).hasMessageContaining("Premature end of data");
            assertThat(incomplete.code()).isEqualTo(LibvirtErrorCode.XML_ERROR);
            assertThat(List.of(malformed, incomplete)).extracting(LibvirtException::kind)
                    .containsOnly(dev.egressproxies.api.ErrorKind.PERMANENT);
        }

        private List<InterfaceAddress> addressesOrError(Domain domain, AddressSource source) {
            try {
                return libvirt.interfaceAddresses(domain, source);
            } catch (LibvirtException e) {
                assertThat(e.isTransportFailure()).as("error of %s: %s", source, e.getMessage()).isFalse();
                return List.of();
            }
        }

        /** A guest on the stack's bridge with an overlay and a real seed image, both in the stack's pool. */
        private DomainDefinition definition(String name) {
            String overlayName = leftovers.volume(name + "-disk.qcow2");
            String seedName = leftovers.volume(name + "-seed.iso");
            StorageVolume overlay = libvirt.createVolume(pool, VolumeXml.image(overlayName, DiskFormat.QCOW2, 1 << 20));
            byte[] seed = NoCloudSeed.builder(name).userData("#cloud-config\n").build().toIsoImage(CREATED);
            StorageVolume seedVolume = libvirt.createVolume(pool, VolumeXml.raw(seedName, seed.length));
            libvirt.uploadVolume(seedVolume, new ByteArrayInputStream(seed), seed.length);
            return new DomainDefinition(name, 64, 1, HostPlatform.defaultsFor(STACK.domainType()), false,
                    overlay.path(), seedVolume.path(), STACK.bridge(), new InstanceMetadata("uid-" + name, CREATED, ENTRY));
        }
    }

    private static String qemuImgInfo(Path image) throws IOException, InterruptedException {
        Process process = new ProcessBuilder("qemu-img", "info", "--output=json", "-U", image.toString())
                .redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(output).isZero();
        return output;
    }
}

package dev.egressproxies.kvm.common.image;

import dev.egressproxies.kvm.common.image.ImageFetcher.TransferBudget;
import dev.egressproxies.kvm.common.image.ImageFetcher.FetchResult;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.spi.ProgressReporter;
import dev.egressproxies.kvm.common.image.ImageFetchException.Reason;
import dev.egressproxies.kvm.common.libvirt.LibvirtJavaHost;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StoragePool;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StorageVolume;
import dev.egressproxies.kvm.common.teststack.Leftovers;
import dev.egressproxies.kvm.common.teststack.TestStack;
import dev.egressproxies.kvm.common.teststack.Virsh;
import dev.egressproxies.kvm.common.xml.DiskFormat;
import dev.egressproxies.kvm.common.xml.VolumeXml;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The image pipeline feeding a real volume upload on the test stack's libvirtd, the way the kvm2
 * backend will use it: a compressed qcow2 into a one-byte raw volume uploaded until the end, a
 * plain one with its known length, and a bad digest that must leave no complete-looking volume.
 */
@Timeout(120)
class ImageUploadIT {
    private static final TestStack STACK = TestStack.load();
    private static final Duration GENEROUS = Duration.ofSeconds(60);

    private static LibvirtJavaHost libvirt;
    private static StoragePool pool;
    private static ImageTestServer server;
    private static byte[] qcow2;

    private final Leftovers leftovers = new Leftovers();
    private final ImageFetcher fetcher = new ImageFetcher(TestImages::followingClient, ProgressReporter.SILENT,
            TransferBudget.of(GENEROUS));

    @BeforeAll
    static void connect() throws IOException {
        libvirt = LibvirtJavaHost.connect("qemu:///system");
        pool = libvirt.lookupPool(STACK.pool()).orElseThrow(() -> new AssertionError("the stack's pool "
                + STACK.pool() + " is missing; run 'scripts/test-stack.sh up' as root"));
        server = new ImageTestServer();
        qcow2 = Files.readAllBytes(STACK.qcow2Image());
    }

    @AfterAll
    static void disconnect() {
        server.close();
        libvirt.close();
    }

    @AfterEach
    void removeWhatTheTestMade() {
        leftovers.removeAll(libvirt, STACK.pool());
    }

    @Test
    void anXzQcow2LandsInAOneByteVolumeUploadedUntilTheEnd() throws IOException {
        byte[] published = TestImages.compress(Compression.XZ, qcow2);
        server.serve("/base.qcow2.xz", published);
        StorageVolume volume = libvirt.createVolume(pool, VolumeXml.raw(leftovers.volume(
                TestStack.uniqueName("base-xz")), 1));

        FetchResult result = fetcher.fetch(ImageSource.builder(server.url("/base.qcow2.xz"))
                        .sha256(TestImages.sha256(published)).build(), "test", Deadline.after(GENEROUS),
                content -> {
                    assertThat(content.length()).isEmpty();
                    libvirt.uploadVolumeUntilEnd(volume, content.stream());
                });
        libvirt.refreshPool(pool);

        assertThat(result.decompressedBytes()).isEqualTo(qcow2.length);
        assertThat(Files.readAllBytes(Path.of(volume.path()))).isEqualTo(qcow2);
        // After the refresh libvirt reads the file as the qcow2 it is: its capacity is the virtual size.
        assertThat(Virsh.run("vol-dumpxml", "--pool", STACK.pool(), volume.name()))
                .contains("<format type='qcow2'/>");
    }

    @Test
    void aPlainQcow2IsUploadedWithItsKnownLength() throws IOException {
        server.serve("/base.qcow2", qcow2);
        StorageVolume volume = libvirt.createVolume(pool, VolumeXml.image(leftovers.volume(
                TestStack.uniqueName("base-plain")), DiskFormat.RAW, qcow2.length));

        fetcher.fetch(ImageSource.builder(server.url("/base.qcow2")).build(), "test", Deadline.after(GENEROUS),
                content -> libvirt.uploadVolume(volume, content.stream(), content.length().orElseThrow()));

        assertThat(Files.readAllBytes(Path.of(volume.path()))).isEqualTo(qcow2);
    }

    @Test
    void aBadDigestAbortsTheUploadBeforeItCompletes() throws IOException {
        byte[] published = TestImages.compress(Compression.ZSTD, qcow2);
        server.serve("/bad.qcow2.zst", published);
        StorageVolume volume = libvirt.createVolume(pool, VolumeXml.raw(leftovers.volume(
                TestStack.uniqueName("base-bad")), 1));

        ImageFetchException failure = catchThrowableOfType(ImageFetchException.class, () -> fetcher.fetch(
                ImageSource.builder(server.url("/bad.qcow2.zst")).sha256("0".repeat(64)).build(), "test",
                Deadline.after(GENEROUS), content -> libvirt.uploadVolumeUntilEnd(volume, content.stream())));

        assertThat(failure.reason()).isEqualTo(Reason.DIGEST_MISMATCH);
        // The stream's end was withheld, so the upload was aborted: the file is short of the image.
        assertThat(Files.size(Path.of(volume.path()))).isLessThan(qcow2.length);
        assertThat(libvirt.hostInfo()).isNotNull();
    }
}

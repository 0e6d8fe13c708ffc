package dev.egressproxies.integration.kvm;

import static dev.egressproxies.kvm.common.testing.Requests.catchProviderException;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.config.ConfigChecks;
import dev.egressproxies.kvm.common.testing.TestBytes;
import dev.egressproxies.kvm.common.teststack.Virsh;
import dev.egressproxies.kvm2.Kvm2Provider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code kvm2} quota precheck on the real stack: a create that would not fit into the pool's
 * available bytes, because of the image's announced size or because of the disk size, is
 * QUOTA_EXCEEDED before anything is written: the image server gets no GET and the pool's volume
 * list is what it was.
 */
@Tag("integration")
@ExtendWith(NoKvmLeftovers.class)
class Kvm2QuotaTest {
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(60);
    private static final long GIB = 1L << 30;
    private static final String KEY = "large";
    private static final String PATH = "/images/large.qcow2";

    @TempDir
    Path temporary;

    private Kvm2StackEntry entry;

    @AfterEach
    void removeWhatTheTestMade() {
        if (entry != null) {
            entry.close();
        }
    }

    @Test
    void anImageLargerThanThePoolsAvailableBytesIsQuotaExceededBeforeAnyGet() {
        entry = Kvm2StackEntry.create("quota-image", temporary);
        long announced = availableBytes() + GIB;
        entry.images().announce(PATH, announced);
        Kvm2Provider kvm2 = entry.provider(entry.config().catalogueImage(KEY, unpinnedImage())
                .setting("diskSizeGb", "1"));

        ProviderException error = createFailsLeavingThePoolAsItWas(kvm2);

        assertThat(error.detail()).contains("image " + announced);
        assertThat(entry.images().heads(PATH)).as("HEADs, the size probe").isEqualTo(1);
    }

    @Test
    void aDiskLargerThanThePoolsAvailableBytesIsQuotaExceededBeforeAnyGet() {
        entry = Kvm2StackEntry.create("quota-disk", temporary);
        long diskSizeGb = availableBytes() / GIB + 1;
        assumeThat(diskSizeGb).as("a disk size the configuration accepts that exceeds the pool")
                .isLessThanOrEqualTo(ConfigChecks.MAXIMUM_DISK_SIZE_GB);
        byte[] image = entry.stackImage();
        entry.images().serve(PATH, image);
        Kvm2Provider kvm2 = entry.provider(entry.config()
                .catalogueImage(KEY, "{url: " + KvmTestConfig.quoted(entry.images().url(PATH)) + ", sha256: "
                        + TestBytes.sha256(image) + ", firmware: bios}")
                .setting("diskSizeGb", Long.toString(diskSizeGb)));

        ProviderException error = createFailsLeavingThePoolAsItWas(kvm2);

        assertThat(error.detail()).contains("disk " + (diskSizeGb << 30));
    }

    private ProviderException createFailsLeavingThePoolAsItWas(Kvm2Provider kvm2) {
        List<String> before = Virsh.volumes(entry.pool(), "");

        ProviderException error = catchProviderException(() -> kvm2.create(entry.request(entry.instance("vm"), KEY),
                Deadline.after(CALL_TIMEOUT)));

        System.out.println("[kvm2 quota] " + error.kind() + ": " + error.getMessage());
        assertThat(error.kind()).as("kind of: %s", error.getMessage()).isEqualTo(ErrorKind.QUOTA_EXCEEDED);
        assertThat(error.detail()).contains("storage pool '" + entry.pool() + "'", "diskSizeGb");
        assertThat(entry.images().gets(PATH)).as("GETs of the image").isZero();
        assertThat(Virsh.volumes(entry.pool(), "")).as("the pool's volumes").isEqualTo(before);
        assertThat(entry.domains()).as("domains of the refused create").isEmpty();
        return error;
    }

    private String unpinnedImage() {
        return "{url: " + KvmTestConfig.quoted(entry.images().url(PATH)) + ", firmware: bios}";
    }

    /** What the pool has free for new volumes, as libvirt reports it after a refresh. */
    private long availableBytes() {
        Virsh.run("pool-refresh", entry.pool());
        return Virsh.run("pool-info", "--bytes", entry.pool()).lines()
                .filter(line -> line.startsWith("Available:"))
                .map(line -> Long.parseLong(line.substring("Available:".length()).strip().split("\\s+")[0]))
                .findFirst()
                .orElseThrow(() -> new AssertionError("virsh pool-info shows no Available line"));
    }
}

package dev.egressproxies.kvm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.PreflightCheck;
import dev.egressproxies.kvm.common.testing.Requests;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * preflight of a {@code kvm} entry: kvm-common's host and machine type checks (tested with the
 * instance engine), then one check per image, each with what to fix; never an exception.
 */
class PreflightTest {
    private final KvmFixture fixture = KvmFixture.hosts(2);

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void aHealthyEntryPassesEveryCheck() {
        List<PreflightCheck> checks = fixture.provider.preflight(Requests.deadline());

        assertThat(checks).extracting(PreflightCheck::name).containsExactly(
                "SSH and libvirt on host host-1 (root@127.0.0.1:2222)", "storage pool egress-test on host host-1",
                "hosts[0].bridge on host host-1", "hosts[0].domainType on host host-1",
                "hosts[0].cpuMode on host host-1", "hosts[0].uefiLoader on host host-1",
                "SSH and libvirt on host host-2 (root@127.0.0.1:2222)", "storage pool egress-test on host host-2",
                "hosts[1].bridge on host host-2", "hosts[1].domainType on host host-2",
                "hosts[1].cpuMode on host host-2", "hosts[1].uefiLoader on host host-2",
                "machine types",
                "image debian-12 at " + serverRoot(), "image alpine-raw at " + serverRoot(),
                "unused base images in pool egress-test on host host-1", "fetch leases in pool egress-test on host host-1",
                "instance volumes without their domain in pool egress-test on host host-1",
                "unused base images in pool egress-test on host host-2", "fetch leases in pool egress-test on host host-2",
                "instance volumes without their domain in pool egress-test on host host-2",
                "name claims on claims host host-2", "cordoned hosts");
        assertThat(checks).allMatch(PreflightCheck::passed);
        assertThat(checks).noneMatch(PreflightCheck::warning);
        assertThat(checks.get(0).detail()).isEqualTo("libvirt 9.0.0 (QEMU) on host-1");
        assertThat(checks.get(1).detail()).isEqualTo("running, 100.0 GiB of 100.0 GiB available");
        assertThat(checks.get(12).detail()).isEqualTo("small (1 vCPU, 512 MiB), large (4 vCPUs, 4096 MiB)");
        assertThat(checks.get(13).detail()).isEqualTo("downloadable, " + KvmFixture.IMAGE_BYTES.length + " bytes (qcow2)");
        assertThat(fixture.server.gets(KvmFixture.IMAGE_PATH)).as("no image downloaded").isZero();
        assertThat(fixture.server.heads(KvmFixture.IMAGE_PATH)).isEqualTo(1);
    }

    @Test
    void anImageThatIsNotThereFails() {
        fixture.server.status(KvmFixture.IMAGE_PATH, 404);

        PreflightCheck image = fixture.provider.preflight(Requests.deadline()).get(13);

        assertThat(image.passed()).isFalse();
        assertThat(image.detail()).contains("answered HTTP 404", "images.debian-12.url of provider entry 'kvm-test'");
    }

    @Test
    void aServerThatRefusesHeadIsAskedWithAGet() {
        fixture.server.serveWithoutHead(KvmFixture.IMAGE_PATH, KvmFixture.IMAGE_BYTES);

        PreflightCheck image = fixture.provider.preflight(Requests.deadline()).get(13);

        assertThat(image.passed()).isTrue();
        assertThat(fixture.server.gets(KvmFixture.IMAGE_PATH)).isEqualTo(1);
    }

    @Test
    void aBaseLeftByAnImageWhoseUrlChangedIsAWarningOnceNoOverlayBacksOnIt() {
        fixture.server.serve("/images/debian-12-new.qcow2", KvmFixture.IMAGE_BYTES);
        String old = fixture.create("proxy-1");
        KvmProvider moved = fixture.providerWithImageAt(fixture.server.url("/images/debian-12-new.qcow2"));
        moved.create(KvmFixture.request("proxy-2"), Requests.deadline());

        assertThat(unusedBases().warning()).as("both bases in use").isFalse();
        fixture.provider.delete(old, Requests.deadline());
        PreflightCheck unused = unusedBases();

        assertThat(unused.passed()).isTrue();
        assertThat(unused.warning()).isTrue();
        assertThat(unused.detail()).contains("1 of 2 cached base images", ": " + fixture.baseVolume + ".",
                "'egressctl images prune --provider " + KvmFixture.ENTRY + "'");
        assertThat(fixture.host().volumeNames(KvmFixture.POOL)).as("nothing removed").contains(fixture.baseVolume,
                fixture.baseMarker);
    }

    private PreflightCheck unusedBases() {
        return fixture.provider.preflight(Requests.deadline()).stream()
                .filter(check -> check.name().equals("unused base images in pool egress-test on host host-1"))
                .findFirst().orElseThrow();
    }

    /** The image server as check names show it: scheme, host and port, never the image's path. */
    private String serverRoot() {
        String url = fixture.server.url(KvmFixture.IMAGE_PATH);
        return url.substring(0, url.indexOf(KvmFixture.IMAGE_PATH));
    }
}

package dev.egressproxies.kvm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.PreflightCheck;
import dev.egressproxies.kvm.common.host.HostCallException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** preflight: one check per thing that can be wrong, each with what to fix; never an exception. */
class PreflightTest {
    private final KvmFixture fixture = KvmFixture.hosts(2);

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void aHealthyEntryPassesEveryCheck() {
        List<PreflightCheck> checks = fixture.provider.preflight(KvmFixture.deadline());

        assertThat(checks).extracting(PreflightCheck::name).containsExactly(
                "SSH and libvirt on host host-1 (root@127.0.0.1:2222)", "storage pool egress-test on host host-1",
                "SSH and libvirt on host host-2 (root@127.0.0.1:2222)", "storage pool egress-test on host host-2",
                "machine types",
                "image debian-12 at " + fixture.server.url(KvmFixture.IMAGE_PATH),
                "image alpine-raw at " + fixture.server.url(KvmFixture.RAW_IMAGE_PATH));
        assertThat(checks).allMatch(PreflightCheck::passed);
        assertThat(checks.get(0).detail()).isEqualTo("libvirt 9.0.0 (QEMU) on host-1");
        assertThat(checks.get(1).detail()).isEqualTo("running, 100.0 GiB of 100.0 GiB available");
        assertThat(checks.get(4).detail()).isEqualTo("small (1 vCPU, 512 MiB), large (4 vCPUs, 4096 MiB)");
        assertThat(checks.get(5).detail()).isEqualTo("downloadable, " + KvmFixture.IMAGE_BYTES.length + " bytes (qcow2)");
        assertThat(fixture.server.gets(KvmFixture.IMAGE_PATH)).as("no image downloaded").isZero();
        assertThat(fixture.server.heads(KvmFixture.IMAGE_PATH)).isEqualTo(1);
    }

    @Test
    void anUnreachableHostFailsItsCheckAndSkipsItsPool() {
        fixture.connections.breakHost("host-1", HostCallException.Reason.UNREACHABLE);

        List<PreflightCheck> checks = fixture.provider.preflight(KvmFixture.deadline());

        assertThat(checks.get(0).passed()).isFalse();
        assertThat(checks.get(0).detail()).contains("could not be reached");
        assertThat(checks.get(1).name()).isEqualTo("SSH and libvirt on host host-2 (root@127.0.0.1:2222)");
        assertThat(checks.get(1).passed()).isTrue();
    }

    @Test
    void aHostKeyOrKeyProblemFailsTheConnectionCheck() {
        fixture.connections.breakHost("host-2", HostCallException.Reason.MISCONFIGURED);

        List<PreflightCheck> checks = fixture.provider.preflight(KvmFixture.deadline());

        assertThat(checks.get(2).passed()).isFalse();
        assertThat(checks.get(2).detail()).contains("cannot work as configured");
    }

    @Test
    void aMissingPoolFailsWithHowToCreateIt() {
        fixture.host().removePool(KvmFixture.POOL);

        PreflightCheck pool = fixture.provider.preflight(KvmFixture.deadline()).get(1);

        assertThat(pool.passed()).isFalse();
        assertThat(pool.detail()).contains("does not exist on host 'host-1'", "virsh pool-define-as egress-test");
    }

    @Test
    void aPoolThatDoesNotRunFailsWithHowToStartIt() {
        fixture.host().stopPool(KvmFixture.POOL);

        PreflightCheck pool = fixture.provider.preflight(KvmFixture.deadline()).get(1);

        assertThat(pool.passed()).isFalse();
        assertThat(pool.detail()).contains("is not running", "virsh pool-start egress-test", "virsh pool-autostart");
    }

    @Test
    void anImageThatIsNotThereFails() {
        fixture.server.status(KvmFixture.IMAGE_PATH, 404);

        PreflightCheck image = fixture.provider.preflight(KvmFixture.deadline()).get(5);

        assertThat(image.passed()).isFalse();
        assertThat(image.detail()).contains("answered HTTP 404", "fix images.debian-12.url");
    }

    @Test
    void aServerThatRefusesHeadIsAskedWithAGet() {
        fixture.server.serveWithoutHead(KvmFixture.IMAGE_PATH, KvmFixture.IMAGE_BYTES);

        PreflightCheck image = fixture.provider.preflight(KvmFixture.deadline()).get(5);

        assertThat(image.passed()).isTrue();
        assertThat(fixture.server.gets(KvmFixture.IMAGE_PATH)).isEqualTo(1);
    }

    @Test
    void aPassedDeadlineFailsTheChecksInsteadOfThrowing() {
        List<PreflightCheck> checks = fixture.provider.preflight(Deadline.after(Duration.ZERO));

        assertThat(checks).filteredOn(check -> !check.name().equals("machine types")).noneMatch(PreflightCheck::passed);
        assertThat(checks.get(0).detail()).contains("deadline exceeded");
    }
}

package dev.egressproxies.kvm.common.instance;

import static dev.egressproxies.kvm.common.instance.EngineFixture.BASE_VOLUME;
import static dev.egressproxies.kvm.common.instance.EngineFixture.IMAGE_BYTES;
import static dev.egressproxies.kvm.common.instance.EngineFixture.POOL;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.PreflightCheck;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrorCode;
import dev.egressproxies.kvm.common.testing.FakeLibvirtHost;
import dev.egressproxies.kvm.common.testing.Requests;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What {@code check} reports of a pool's base images, changing nothing: bases no overlay backs on,
 * fetch leases left and overlays or seeds without their domain are warnings naming their
 * {@code virsh vol-delete} commands, never failures;
 * bases an overlay backs on and other backends' volumes are not reported. Delete leaves leases
 * alone (it only logs them).
 */
class PoolLeftoversTest {
    private static final String UNUSED = "old.base.qcow2";
    private static final String UNUSED_CHECK = "unused base images in pool egress-test on host host-1";
    private static final String LEASES_CHECK = "fetch leases in pool egress-test on host host-1";
    private static final String STRAYS_CHECK = "instance volumes without their domain in pool egress-test on host host-1";
    private static final LeaseHolder ELSEWHERE = new LeaseHolder("other-machine", "boot-1", 4242, 1000);

    private final EngineFixture fixture = EngineFixture.oneHost();
    private final FakeLibvirtHost host = fixture.host();

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void aBaseNoOverlayBacksOnIsAWarningNamingTheCommandThatPrunesIt() {
        fixture.cacheBaseImage();
        fixture.create("proxy-1");
        host.putVolume(POOL, UNUSED, IMAGE_BYTES);
        host.putVolume(POOL, UNUSED + ".complete", new byte[0]);
        host.putVolume(POOL, "kvm2-test+debian-12.0123456789abcdef.base.qcow2", IMAGE_BYTES);
        host.putVolume(POOL, "someone-elses-disk.img", IMAGE_BYTES);
        List<String> before = host.volumeNames(POOL);

        PreflightCheck unused = check(UNUSED_CHECK);

        assertThat(unused.passed()).isTrue();
        assertThat(unused.warning()).isTrue();
        assertThat(unused.detail()).contains("1 of 2 cached base images have no overlay backing on them: " + UNUSED,
                "'egressctl images prune --provider kvm-test'")
                .doesNotContain(BASE_VOLUME, "kvm2-test+");
        assertThat(host.volumeNames(POOL)).as("nothing removed").isEqualTo(before);
    }

    @Test
    void basesThatOverlaysBackOnPassWithoutWarning() {
        fixture.cacheBaseImage();
        fixture.create("proxy-1");

        PreflightCheck unused = check(UNUSED_CHECK);

        assertThat(unused.passed()).isTrue();
        assertThat(unused.warning()).isFalse();
        assertThat(unused.detail()).isEqualTo("none: an overlay backs on each of the 1 cached base images");
        assertThat(check(LEASES_CHECK).detail()).isEqualTo("none left");
    }

    @Test
    void leasesLeftAreAWarningSayingWhetherTheyAreStaleOrHeldAndNamingTheCommand() {
        fixture.cacheBaseImage();
        host.putVolume(POOL, BASE_VOLUME + ".lease", new PoolLease("t1", ELSEWHERE,
                Instant.now().minus(Duration.ofMinutes(1))).bytes());
        host.putVolume(POOL, UNUSED + ".lease", new PoolLease("t2", ELSEWHERE,
                Instant.now().plus(Duration.ofHours(1))).bytes());
        host.putVolume(POOL, "kvm2-test+x.0123456789abcdef.base.qcow2.lease", new byte[0]);

        PreflightCheck leases = check(LEASES_CHECK);

        assertThat(leases.passed()).isTrue();
        assertThat(leases.warning()).isTrue();
        assertThat(leases.detail()).contains(BASE_VOLUME + ".lease of process 4242 on other-machine is stale (it"
                        + " expired at", "the next create of its image removes it",
                "'virsh vol-delete --pool egress-test " + BASE_VOLUME + ".lease'",
                UNUSED + ".lease is held by process 4242 on other-machine until",
                "'virsh vol-delete --pool egress-test " + UNUSED + ".lease'")
                .doesNotContain("kvm2-test+");
    }

    @Test
    void overlaysAndSeedsWithoutTheirDomainAreAWarningNamingThemAndTheCommand() {
        fixture.cacheBaseImage();
        fixture.create("proxy-1");
        host.putVolume(POOL, EngineFixture.overlay("proxy-2"), IMAGE_BYTES);
        host.putVolume(POOL, EngineFixture.seed("proxy-3"), new byte[] {1});
        host.putVolume(POOL, "other-entry+proxy-4.qcow2", IMAGE_BYTES);
        host.putVolume(POOL, "kvm-test+debian-12.0123456789abcdef.base.qcow2", IMAGE_BYTES);
        List<String> before = host.volumeNames(POOL);

        PreflightCheck strays = check(STRAYS_CHECK);

        assertThat(strays.passed()).isTrue();
        assertThat(strays.warning()).isTrue();
        assertThat(strays.detail()).contains("2 volumes have no domain", EngineFixture.overlay("proxy-2") + ", "
                        + EngineFixture.seed("proxy-3"), "cut off", "'virsh vol-delete --pool egress-test VOLUME'")
                .doesNotContain("proxy-1", "proxy-4", "base.qcow2");
        assertThat(host.volumeNames(POOL)).as("nothing removed").isEqualTo(before);
    }

    @Test
    void everyOverlayWithItsDomainPassesWithoutWarning() {
        fixture.cacheBaseImage();
        fixture.create("proxy-1");

        PreflightCheck strays = check(STRAYS_CHECK);

        assertThat(strays.warning()).isFalse();
        assertThat(strays.detail()).isEqualTo("none: every overlay and seed of this entry has its domain");
    }

    @Test
    void aPoolThatCannotBeListedIsAWarningSayingItWasNotChecked() {
        host.failNext("listVolumeNames", FakeLibvirtHost.error(LibvirtErrorCode.OPERATION_FAILED, "pool busy"));

        List<PreflightCheck> checks = fixture.engine.preflight(Requests.deadline());

        PreflightCheck unchecked = checks.stream()
                .filter(check -> check.name().equals("unused base images and fetch leases in pool egress-test on host"
                        + " host-1")).findFirst().orElseThrow();
        assertThat(unchecked.warning()).isTrue();
        assertThat(unchecked.detail()).startsWith("not checked: ").contains("pool busy");
    }

    @Test
    void deleteLeavesALeaseItFindsForTheNextCreateOrTheOperator() {
        fixture.cacheBaseImage();
        String id = fixture.create("proxy-1");
        host.putVolume(POOL, BASE_VOLUME + ".lease", new PoolLease("t1", ELSEWHERE,
                Instant.now().minus(Duration.ofMinutes(1))).bytes());

        fixture.engine.delete(id, Requests.deadline());

        assertThat(host.volumeNames(POOL)).containsExactlyInAnyOrder(BASE_VOLUME, BASE_VOLUME + ".lease");
    }

    private PreflightCheck check(String name) {
        return fixture.engine.preflight(Requests.deadline()).stream().filter(check -> check.name().equals(name))
                .findFirst().orElseThrow(() -> new AssertionError("no check named " + name));
    }
}

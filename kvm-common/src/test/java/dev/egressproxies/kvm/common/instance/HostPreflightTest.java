package dev.egressproxies.kvm.common.instance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.PreflightCheck;
import dev.egressproxies.kvm.common.testing.Requests;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The engine's preflight: one check per thing that can be wrong on the hosts, each with what to fix,
 * then the strategy's image checks; never an exception.
 */
class HostPreflightTest {
    private final EngineFixture fixture = EngineFixture.hosts(2);

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void aHealthyEntryPassesEveryCheck() {
        List<PreflightCheck> checks = fixture.engine.preflight(Requests.deadline());

        assertThat(checks).extracting(PreflightCheck::name).containsExactly(
                "SSH and libvirt on host host-1 (root@127.0.0.1:2222)", "storage pool egress-test on host host-1",
                "hosts[0].bridge on host host-1", "hosts[0].domainType on host host-1",
                "hosts[0].cpuMode on host host-1", "hosts[0].uefiLoader on host host-1",
                "SSH and libvirt on host host-2 (root@127.0.0.1:2222)", "storage pool egress-test on host host-2",
                "hosts[1].bridge on host host-2", "hosts[1].domainType on host host-2",
                "hosts[1].cpuMode on host host-2", "hosts[1].uefiLoader on host host-2",
                "machine types", "images",
                "unused base images in pool egress-test on host host-1", "fetch leases in pool egress-test on host host-1",
                "instance volumes without their domain in pool egress-test on host host-1",
                "unused base images in pool egress-test on host host-2", "fetch leases in pool egress-test on host host-2",
                "instance volumes without their domain in pool egress-test on host host-2",
                "name claims on claims host host-1", "cordoned hosts");
        assertThat(checks).allMatch(PreflightCheck::passed);
        assertThat(checks).noneMatch(PreflightCheck::warning);
        assertThat(checks.get(0).detail()).isEqualTo("libvirt 9.0.0 (QEMU) on host-1");
        assertThat(checks.get(1).detail()).isEqualTo("running, 100.0 GiB of 100.0 GiB available");
        assertThat(checks.get(2).detail()).isEqualTo("bridge br-test exists");
        assertThat(checks.get(3).detail()).isEqualTo("qemu offered, default machine pc-i440fx-7.2");
        assertThat(checks.get(4).detail()).isEqualTo("QEMU's default CPU model");
        assertThat(checks.get(5).detail()).startsWith("/usr/share/OVMF/OVMF_CODE_4M.fd offered");
        assertThat(checks.get(12).detail()).isEqualTo("small (1 vCPU, 512 MiB), large (4 vCPUs, 4096 MiB)");
        assertThat(checks.get(13).detail()).isEqualTo("debian-12, alpine-raw, debian-12-uefi");
        assertThat(fixture.host().domainNames()).as("no domain made").isEmpty();
        assertThat(fixture.images.ensures()).as("no image made").isZero();
    }

    @Test
    void anUnreachableHostFailsItsCheckAndSkipsItsPool() {
        fixture.connections.breakHost("host-1", ErrorKind.TRANSIENT);

        List<PreflightCheck> checks = fixture.engine.preflight(Requests.deadline());

        assertThat(checks.get(0).passed()).isFalse();
        assertThat(checks.get(0).detail()).contains("could not be reached");
        assertThat(checks.get(1).name()).isEqualTo("SSH and libvirt on host host-2 (root@127.0.0.1:2222)");
        assertThat(checks.get(1).passed()).isTrue();
    }

    @Test
    void aHostKeyOrKeyProblemFailsTheConnectionCheck() {
        fixture.connections.breakHost("host-2", ErrorKind.PERMANENT);

        List<PreflightCheck> checks = fixture.engine.preflight(Requests.deadline());

        assertThat(checks.get(6).passed()).isFalse();
        assertThat(checks.get(6).detail()).contains("cannot work as configured");
    }

    @Test
    void aMissingPoolFailsWithHowToCreateIt() {
        fixture.host().removePool(EngineFixture.POOL);

        PreflightCheck pool = fixture.engine.preflight(Requests.deadline()).get(1);

        assertThat(pool.passed()).isFalse();
        assertThat(pool.detail()).contains("does not exist on host 'host-1'", "virsh pool-define-as egress-test");
    }

    @Test
    void aPoolThatDoesNotRunFailsWithHowToStartIt() {
        fixture.host().stopPool(EngineFixture.POOL);

        PreflightCheck pool = fixture.engine.preflight(Requests.deadline()).get(1);

        assertThat(pool.passed()).isFalse();
        assertThat(pool.detail()).contains("is not running", "virsh pool-start egress-test", "virsh pool-autostart");
    }

    @Test
    void aPassedDeadlineFailsTheChecksInsteadOfThrowing() {
        List<PreflightCheck> checks = fixture.engine.preflight(Deadline.after(Duration.ZERO));

        assertThat(checks).filteredOn(check -> check.name().startsWith("SSH")).noneMatch(PreflightCheck::passed);
        assertThat(checks.get(0).detail()).contains("deadline exceeded");
    }
}

package dev.egressproxies.kvm.common.instance;

import static dev.egressproxies.kvm.common.testing.Requests.catchProviderException;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.host.HostCall;
import dev.egressproxies.kvm.common.host.HostEndpoint;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrorCode;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StoragePool;
import dev.egressproxies.kvm.common.testing.FakeLibvirtHost;
import dev.egressproxies.kvm.common.testing.FakeLinkDialer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/**
 * Fetch leases between processes, simulated by several {@link PoolLeases} of different holders
 * sharing one fake libvirt host: a live lease keeps others off, a stale one (expired, or of a
 * holder on this machine that is gone) is taken over, a holder that lost its lease finds out before
 * its marker, and release removes only the releaser's own lease.
 */
class PoolLeasesTest {
    private static final HostSettings HOST = HostSettings.of("host-1", "10.0.0.5", "br0");
    private static final String BASE = "debian.base.qcow2";
    private static final String LEASE = "debian.base.qcow2.lease";
    private static final String WHAT = "fetching image debian to host 'host-1'";
    private static final Instant NOW = Instant.parse("2026-12-02T12:00:00Z");
    /** A holder on another machine: never known gone, so only its expiry ends its lease. */
    private static final LeaseHolder ELSEWHERE = new LeaseHolder("other-machine", "boot-1", 4242, 1000);

    private final FakeLibvirtHost fake = new FakeLibvirtHost("host-1").withPool(HOST.pool());
    private final HostPool hosts = new HostPool(new FakeLinkDialer().with(fake));
    private final Call call = new Call("e", Operation.CREATE, "vm-1", Deadline.after(Duration.ofMinutes(5)));

    @Test
    void aLiveLeaseHeldElsewhereMakesTheCreateFailTransientNamingTheHolderAndLeavesItAlone() {
        PoolLeases.Held held = leases(ELSEWHERE, NOW).acquire(fake, pool(), HOST, BASE, WHAT, call);
        byte[] before = fake.volume(HOST.pool(), LEASE).content.clone();

        ProviderException refused = catchProviderException(() ->
                leases(LeaseHolder.current(), NOW.plusSeconds(60)).acquire(fake, pool(), HOST, BASE, WHAT, call));

        assertThat(refused.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(refused.detail()).contains("process 4242 on other-machine", WHAT,
                "expires at " + held.lease().expires());
        assertThat(fake.volume(HOST.pool(), LEASE).content).isEqualTo(before);
        assertThat(held.lease().expires()).isAfter(NOW.plus(Duration.ofMinutes(4)).plus(PoolLeases.MARGIN));
    }

    @Test
    void aLiveHolderOnThisMachineKeepsItsLease() {
        LeaseHolder self = LeaseHolder.current();
        leases(self, NOW).acquire(fake, pool(), HOST, BASE, WHAT, call);
        LeaseHolder sibling = new LeaseHolder(self.machine(), self.bootId(), self.pid() + 1, 0);

        ProviderException refused = catchProviderException(() ->
                leases(sibling, NOW).acquire(fake, pool(), HOST, BASE, WHAT, call));

        assertThat(refused.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(refused.detail()).contains("process " + self.pid());
    }

    @Test
    void anExpiredLeaseIsTakenOverAndItsFormerHolderFindsOutBeforeItsMarkerAndReleasesNothing() {
        PoolLeases.Held first = leases(ELSEWHERE, NOW).acquire(fake, pool(), HOST, BASE, WHAT, call);
        Instant afterExpiry = first.lease().expires().plusSeconds(1);

        PoolLeases.Held second = leases(LeaseHolder.current(), afterExpiry).acquire(fake, pool(), HOST, BASE, WHAT,
                call);
        ProviderException lost = catchProviderException(() -> first.requireHeld(fake, pool(), call));
        first.release(call);

        assertThat(leaseText()).contains("token=" + second.lease().token());
        assertThat(lost.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(lost.detail()).contains("lost the fetch lease", "wrote no marker");
        assertThat(first.lost()).isTrue();
        assertThat(second.lost()).isFalse();
    }

    @Test
    void aLeaseWhoseHolderOnThisMachineIsGoneIsTakenOverAtOnce() throws Exception {
        LeaseHolder self = LeaseHolder.current();
        Process finished = new ProcessBuilder("true").start();
        finished.waitFor();
        LeaseHolder dead = new LeaseHolder(self.machine(), self.bootId(), finished.pid(), 0);
        leases(dead, NOW).acquire(fake, pool(), HOST, BASE, WHAT, call);

        PoolLeases.Held taken = leases(self, NOW).acquire(fake, pool(), HOST, BASE, WHAT, call);

        assertThat(leaseText()).contains("token=" + taken.lease().token(), "pid=" + self.pid());
    }

    @Test
    void aHolderOnThisMachineNameFromAnEarlierBootIsGone() {
        LeaseHolder self = LeaseHolder.current();
        leases(new LeaseHolder(self.machine(), "earlier-boot", self.pid(), self.started()), NOW)
                .acquire(fake, pool(), HOST, BASE, WHAT, call);

        PoolLeases.Held taken = leases(self, NOW).acquire(fake, pool(), HOST, BASE, WHAT, call);

        assertThat(leaseText()).contains("token=" + taken.lease().token());
    }

    @Test
    void aLeaseVolumeThatStaysEmptyWasLeftByACrashBetweenCreateAndWriteAndIsTakenOver() {
        fake.putVolume(HOST.pool(), LEASE, new byte[0]);

        PoolLeases.Held taken = leases(LeaseHolder.current(), NOW).acquire(fake, pool(), HOST, BASE, WHAT, call);

        assertThat(leaseText()).contains("token=" + taken.lease().token());
    }

    @Test
    void theHolderStillHoldingItsLeasePassesTheCheckAndReleaseRemovesIt() {
        PoolLeases.Held held = leases(ELSEWHERE, NOW).acquire(fake, pool(), HOST, BASE, WHAT, call);

        held.requireHeld(fake, pool(), call);
        held.release(call);

        assertThat(held.lost()).isFalse();
        assertThat(fake.volumeNames(HOST.pool())).doesNotContain(LEASE);
    }

    @Test
    void aLeaseThisInstanceCouldNotReleaseIsItsOwnLeftoverAndTakenOverAtOnce() {
        PoolLeases leases = leases(LeaseHolder.current(), NOW);
        PoolLeases.Held earlier = leases.acquire(fake, pool(), HOST, BASE, WHAT, call);
        fake.failNext("lookupVolume", FakeLibvirtHost.error(LibvirtErrorCode.RPC, "connection closed"));
        earlier.release(call);
        assertThat(fake.volumeNames(HOST.pool())).contains(LEASE);

        PoolLeases.Held again = leases.acquire(fake, pool(), HOST, BASE, WHAT, call);

        assertThat(leaseText()).contains("token=" + again.lease().token());
    }

    @Test
    void aCreateThatFindsTheBaseCompleteRemovesALeaseWhoseHolderIsGone() throws Exception {
        LeaseHolder self = LeaseHolder.current();
        Process finished = new ProcessBuilder("true").start();
        finished.waitFor();
        // As a holder killed after its marker and before its release leaves it.
        leases(new LeaseHolder(self.machine(), self.bootId(), finished.pid(), 0), NOW)
                .acquire(fake, pool(), HOST, BASE, WHAT, call);

        leases(self, NOW).removeStale(fake, pool(), HOST, BASE);

        assertThat(fake.volumeNames(HOST.pool())).doesNotContain(LEASE);
    }

    @Test
    void aCreateThatFindsTheBaseCompleteRemovesAnExpiredLease() {
        PoolLeases.Held held = leases(ELSEWHERE, NOW).acquire(fake, pool(), HOST, BASE, WHAT, call);

        leases(LeaseHolder.current(), held.lease().expires()).removeStale(fake, pool(), HOST, BASE);

        assertThat(fake.volumeNames(HOST.pool())).doesNotContain(LEASE);
    }

    @Test
    void aCreateThatFindsTheBaseCompleteLeavesALiveOrUnwrittenLeaseAlone() {
        leases(ELSEWHERE, NOW).acquire(fake, pool(), HOST, BASE, WHAT, call);
        fake.putVolume(HOST.pool(), "other.base.qcow2.lease", new byte[0]);
        byte[] live = fake.volume(HOST.pool(), LEASE).content.clone();

        PoolLeases self = leases(LeaseHolder.current(), NOW.plusSeconds(60));
        self.removeStale(fake, pool(), HOST, BASE);
        self.removeStale(fake, pool(), HOST, "other.base.qcow2");
        self.removeStale(fake, pool(), HOST, "absent.base.qcow2");

        assertThat(fake.volumeNames(HOST.pool())).contains(LEASE, "other.base.qcow2.lease");
        assertThat(fake.volume(HOST.pool(), LEASE).content).isEqualTo(live);
    }

    @Test
    void theLeaseVolumeIsNamedAfterTheBaseWithASuffixNoOtherVolumeHas() {
        assertThat(PoolLeases.volumeName(BASE)).isEqualTo(LEASE);
    }

    private PoolLeases leases(LeaseHolder holder, Instant now) {
        return new PoolLeases(new BaseImageDiscard(hosts), holder, Clock.fixed(now, ZoneOffset.UTC));
    }

    private StoragePool pool() {
        return fake.lookupPool(HOST.pool()).orElseThrow();
    }

    private String leaseText() {
        return new String(fake.volume(HOST.pool(), LEASE).content, StandardCharsets.US_ASCII);
    }
}

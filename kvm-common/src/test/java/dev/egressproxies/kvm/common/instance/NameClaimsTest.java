package dev.egressproxies.kvm.common.instance;

import static dev.egressproxies.kvm.common.instance.EngineFixture.ENTRY;
import static dev.egressproxies.kvm.common.instance.EngineFixture.POOL;
import static dev.egressproxies.kvm.common.testing.Requests.catchProviderException;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.PreflightCheck;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.DomainState;
import dev.egressproxies.kvm.common.testing.FakeLibvirtHost;
import dev.egressproxies.kvm.common.testing.PlatformMetadata;
import dev.egressproxies.kvm.common.testing.Requests;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Creates and deletes on an entry with several hosts take the name's claim on the claims host
 * (host-1): another process's live claim is waited out, a stale one taken over, and without the
 * claims host nothing is made. Other processes are simulated by claims written with their holder.
 */
class NameClaimsTest {
    private static final String CLAIM = NameClaims.volumeName(ENTRY, "proxy-1");
    private static final LeaseHolder ELSEWHERE = new LeaseHolder("another-machine", "boot-1", 4242, 1);

    private final EngineFixture fixture = EngineFixture.hosts(2);
    private final FakeLibvirtHost first = fixture.hosts.get(0);
    private final FakeLibvirtHost second = fixture.hosts.get(1);

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void createAndDeleteTakeTheClaimOnTheClaimsHostAndReleaseIt() {
        String id = fixture.engine.create(request("host-2"), Requests.deadline());
        long claimsTakenByCreate = first.callLog().stream().filter(call -> call.startsWith("createVolume")).count();
        fixture.engine.delete(id, Requests.deadline());

        assertThat(claimsTakenByCreate).as("claim volumes created on host-1 by the create").isEqualTo(1);
        assertThat(first.callLog().stream().filter(call -> call.startsWith("createVolume")).count())
                .as("claim volumes created on host-1 by create and delete").isEqualTo(2);
        assertThat(first.volumeNames(POOL)).as("host-1's pool: every claim released").isEmpty();
        assertThat(second.domainNames()).isEmpty();
    }

    @Test
    void aLiveClaimOfAnotherProcessIsWaitedOutThenItsInstanceIsSeen() throws Exception {
        putClaim(ELSEWHERE, Instant.now().plusSeconds(60));
        CompletableFuture<Void> otherProcess = CompletableFuture.runAsync(() -> {
            sleep(400);
            second.putDomain("proxy-1", DomainState.RUNNING, PlatformMetadata.of(ENTRY, "uid-other"));
            first.removeVolume(POOL, CLAIM);
        });

        ProviderException error = catchProviderException(() -> fixture.engine.create(request("host-1"),
                Requests.deadline()));
        otherProcess.get(5, TimeUnit.SECONDS);

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.detail()).contains("instance host-2/proxy-1");
        assertThat(first.domainNames()).as("nothing made on host-1").isEmpty();
        assertThat(first.volumeNames(POOL)).isEmpty();
    }

    @Test
    void aLiveClaimPastTheDeadlineIsTransientNamingItsHolderAndChangesNothing() {
        putClaim(ELSEWHERE, Instant.now().plusSeconds(60));

        ProviderException error = catchProviderException(() -> fixture.engine.create(request("host-2"),
                Deadline.after(Duration.ofMillis(700))));

        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(error.detail()).contains("process 4242 on another-machine", CLAIM, "host-1");
        assertThat(second.domainNames()).isEmpty();
        assertThat(first.volumeNames(POOL)).containsExactly(CLAIM);
    }

    @Test
    void aClaimOfAProcessThatIsGoneIsTakenOverAndCheckReportsItFirst() {
        LeaseHolder self = LeaseHolder.current();
        LeaseHolder dead = new LeaseHolder(self.machine(), self.bootId(), Integer.MAX_VALUE - 1, 1);
        putClaim(dead, Instant.now().plusSeconds(600));

        PreflightCheck claims = fixture.engine.preflight(Requests.deadline()).stream()
                .filter(check -> check.name().startsWith("name claims")).findFirst().orElseThrow();
        String id = fixture.engine.create(request("host-2"), Requests.deadline());

        assertThat(claims.detail()).contains(CLAIM, "is stale", "that process is gone");
        assertThat(id).isEqualTo("host-2/proxy-1");
        assertThat(first.volumeNames(POOL)).as("the stale claim, taken over and released").isEmpty();
    }

    @Test
    void anExpiredClaimIsTakenOver() {
        putClaim(ELSEWHERE, Instant.now().minusSeconds(1));

        assertThat(fixture.engine.create(request("host-2"), Requests.deadline())).isEqualTo("host-2/proxy-1");
        assertThat(first.volumeNames(POOL)).isEmpty();
    }

    @Test
    void withoutTheClaimsHostNothingIsMadeAndTheErrorNamesIt() {
        fixture.connections.breakHost("host-1", ErrorKind.TRANSIENT);

        ProviderException error = catchProviderException(() -> fixture.engine.create(request("host-2"),
                Requests.deadline()));

        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(error.detail()).contains("host 'host-1', the claims host of provider entry 'kvm-test'",
                "nothing was changed", "claimsHost");
        assertThat(second.domainNames()).isEmpty();
        assertThat(second.volumeNames(POOL)).isEmpty();
    }

    @Test
    void anEntryWithOneHostTakesNoClaim() {
        try (EngineFixture single = EngineFixture.oneHost()) {
            single.cacheBaseImage();
            single.create("proxy-1");

            assertThat(single.host().callCounts().get("createVolume")).as("volumes created: overlay and seed only")
                    .isEqualTo(2);
        }
    }

    private void putClaim(LeaseHolder holder, Instant expires) {
        first.putVolume(POOL, CLAIM, new PoolLease("token-" + holder.pid(), holder,
                expires.truncatedTo(ChronoUnit.MILLIS)).bytes());
    }

    private static dev.egressproxies.api.CreateRequest request(String zone) {
        return Requests.request("proxy-1", new Placement(zone, "small", EngineFixture.IMAGE));
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}

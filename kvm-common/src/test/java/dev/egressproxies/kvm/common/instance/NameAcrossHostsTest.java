package dev.egressproxies.kvm.common.instance;

import static dev.egressproxies.kvm.common.instance.EngineFixture.OTHER_ENTRY;
import static dev.egressproxies.kvm.common.instance.EngineFixture.POOL;
import static dev.egressproxies.kvm.common.testing.Requests.catchProviderException;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.DomainState;
import dev.egressproxies.kvm.common.testing.FakeLibvirtHost;
import dev.egressproxies.kvm.common.testing.PlatformMetadata;
import dev.egressproxies.kvm.common.testing.Requests;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A name is one instance per entry across its hosts: a create on one host asks the others first,
 * refuses a name this entry holds there, cannot proceed while one of them is unreadable, and in
 * either case changes nothing; what a create cut off on another host left of the name is removed.
 */
class NameAcrossHostsTest {
    private final EngineFixture fixture = EngineFixture.hosts(2);
    private final FakeLibvirtHost first = fixture.hosts.get(0);
    private final FakeLibvirtHost second = fixture.hosts.get(1);

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void aNameThisEntryHoldsOnAnotherHostIsPermanentNamingItsIdAndChangesNothing() {
        String existing = fixture.engine.create(request("proxy-1", "host-2"), Requests.deadline());
        second.domain("proxy-1").state = DomainState.SHUTOFF;

        ProviderException error = catchProviderException(() -> fixture.engine.create(request("proxy-1", "host-1"),
                Requests.deadline()));

        assertThat(existing).isEqualTo("host-2/proxy-1");
        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.operation()).isEqualTo(Operation.CREATE);
        assertThat(error.instanceId()).isEqualTo("host-1/proxy-1");
        assertThat(error.detail()).contains("instance host-2/proxy-1", "zone 'host-2'", "delete host-2/proxy-1 first");
        assertThat(first.domainNames()).isEmpty();
        assertThat(first.volumeNames(POOL)).isEmpty();
        assertThat(second.domain("proxy-1").state).as("the existing one is not started either")
                .isEqualTo(DomainState.SHUTOFF);
    }

    @Test
    void theSameNameOfAnotherEntryOrOfNoEntryOnAnotherHostLeavesTheNameFree() {
        second.putDomain("proxy-1", DomainState.RUNNING, PlatformMetadata.of(OTHER_ENTRY, "uid-other"));
        second.putDomain("proxy-2", DomainState.RUNNING, null);

        assertThat(fixture.engine.create(request("proxy-1", "host-1"), Requests.deadline()))
                .isEqualTo("host-1/proxy-1");
        assertThat(fixture.engine.create(request("proxy-2", "host-1"), Requests.deadline()))
                .isEqualTo("host-1/proxy-2");
    }

    @Test
    void anUnreadableOtherHostIsTransientNamingItAndChangesNothing() {
        fixture.connections.breakHost("host-2", ErrorKind.TRANSIENT);

        ProviderException error = catchProviderException(() -> fixture.engine.create(request("proxy-1", "host-1"),
                Requests.deadline()));

        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(error.instanceId()).isEqualTo("host-1/proxy-1");
        assertThat(error.detail()).contains("zone (host) 'host-2'", "cannot be read", "retry");
        assertThat(first.domainNames()).isEmpty();
        assertThat(first.volumeNames(POOL)).as("host-1's pool, its name claim released").isEmpty();
        assertThat(first.callLog()).as("host-1's calls: only for the name claim").allMatch(call -> call.toLowerCase(java.util.Locale.ROOT)
                .contains("volume") || call.toLowerCase(java.util.Locale.ROOT).contains("pool"));
    }

    @Test
    void anExistingInstanceOnItsOwnHostIsStillOnlyStarted() {
        String id = fixture.engine.create(request("proxy-1", "host-1"), Requests.deadline());
        first.domain("proxy-1").state = DomainState.SHUTOFF;

        assertThat(fixture.engine.create(request("proxy-1", "host-1"), Requests.deadline())).isEqualTo(id);
        assertThat(first.domain("proxy-1").state).isEqualTo(DomainState.RUNNING);
        assertThat(second.domainNames()).isEmpty();
    }

    @Test
    void afterADeleteTheNameMovesToAnotherHost() {
        String old = fixture.engine.create(request("proxy-1", "host-1"), Requests.deadline());
        fixture.engine.delete(old, Requests.deadline());

        assertThat(fixture.engine.create(request("proxy-1", "host-2"), Requests.deadline()))
                .isEqualTo("host-2/proxy-1");
        assertThat(first.domainNames()).isEmpty();
    }

    @Test
    void whatACutOffCreateLeftOnAnotherHostIsRemovedWhenTheNameIsCreatedElsewhere() {
        second.putVolume(POOL, EngineFixture.overlay("proxy-1"), new byte[] {1});
        second.putVolume(POOL, EngineFixture.seed("proxy-1"), new byte[] {2});
        second.putVolume(POOL, EngineFixture.overlay("proxy-2"), new byte[] {3});

        assertThat(fixture.engine.create(request("proxy-1", "host-1"), Requests.deadline()))
                .isEqualTo("host-1/proxy-1");

        assertThat(first.volumeNames(POOL)).contains(EngineFixture.overlay("proxy-1"), EngineFixture.seed("proxy-1"));
        assertThat(second.volumeNames(POOL)).as("only the other name's overlay is left")
                .containsExactly(EngineFixture.overlay("proxy-2"));
    }

    @Test
    void aPlacedCreateLeavesTheNameOnOneHostOnlyWhereverACutOffCreateWas() {
        fixture.cacheBaseImage();
        second.putVolume(POOL, EngineFixture.overlay("proxy-1"), new byte[] {1});
        second.putVolume(POOL, EngineFixture.seed("proxy-1"), new byte[] {2});

        String id = fixture.engine.create(Requests.request("proxy-1", new Placement("", "small",
                EngineFixture.IMAGE)), Requests.deadline());

        FakeLibvirtHost holder = id.startsWith("host-1/") ? first : second;
        FakeLibvirtHost other = holder == first ? second : first;
        assertThat(holder.domainNames()).containsExactly("proxy-1");
        assertThat(other.domainNames()).isEmpty();
        assertThat(other.volumeNames(POOL)).doesNotContain(EngineFixture.overlay("proxy-1"),
                EngineFixture.seed("proxy-1"));
    }

    @Test
    void theVolumesOfANameAreKeptWhereADomainOfThatNameExistsThatIsNotThisEntrys() {
        second.putDomain("proxy-1", DomainState.RUNNING, PlatformMetadata.of(OTHER_ENTRY, "uid-other"));
        second.putVolume(POOL, EngineFixture.overlay("proxy-1"), new byte[] {1});

        fixture.engine.create(request("proxy-1", "host-1"), Requests.deadline());

        assertThat(second.volumeNames(POOL)).contains(EngineFixture.overlay("proxy-1"));
    }

    private static CreateRequest request(String name, String host) {
        return Requests.request(name, new Placement(host, "small", EngineFixture.IMAGE));
    }
}

package dev.egressproxies.kvm.common.instance;

import static dev.egressproxies.kvm.common.testing.Requests.catchProviderException;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.InstanceState;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrorCode;
import dev.egressproxies.kvm.common.libvirt.LibvirtException;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.AddressSource;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.DomainState;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.InterfaceAddress;
import dev.egressproxies.kvm.common.testing.FakeLibvirtHost;
import dev.egressproxies.kvm.common.testing.PlatformMetadata;
import dev.egressproxies.kvm.common.testing.Requests;
import dev.egressproxies.kvm.common.testing.TestProviderContext;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * listManaged: every host, only domains with the platform's metadata naming this entry, a single
 * unreadable domain skipped, and one host that fails failing the whole call.
 */
class ListManagedTest {
    private final EngineFixture fixture = EngineFixture.hosts(2);
    private final FakeLibvirtHost first = fixture.hosts.get(0);
    private final FakeLibvirtHost second = fixture.hosts.get(1);

    @BeforeEach
    void createInstances() {
        fixture.create("proxy-b");
        fixture.create("proxy-a");
        fixture.engine.create(Requests.request("proxy-c", new Placement("host-2", "small", EngineFixture.IMAGE)),
                Requests.deadline());
        first.putDomain("by-hand", DomainState.RUNNING, null);
        second.putDomain("other-tool", DomainState.SHUTOFF, "<x:tag xmlns:x='https://example.org/other'/>");
    }

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void managedDomainsOfEveryHostAreListedAndOthersLeftOut() {
        first.domain("proxy-a").addresses.put(AddressSource.ARP, List.of(new InterfaceAddress("vnet0", "10.0.0.7", true)));
        second.domain("proxy-c").state = DomainState.SHUTOFF;

        List<Instance> listed = fixture.engine.listManaged(Requests.deadline());

        assertThat(listed).containsExactly(
                listed("host-1/proxy-a", "10.0.0.7", InstanceState.RUNNING),
                listed("host-1/proxy-b", "", InstanceState.PROVISIONING),
                listed("host-2/proxy-c", "", InstanceState.STOPPED));
    }

    /** An instance the set-up created, as listed: its placement and user-data digest included. */
    private static Instance listed(String id, String ip, InstanceState state) {
        String host = id.substring(0, id.indexOf('/'));
        String name = id.substring(id.indexOf('/') + 1);
        return new Instance(id, name, ip, state, "uid-" + name, TestProviderContext.NOW,
                new Placement(host, "small", EngineFixture.IMAGE),
                Requests.request(name, new Placement(host, "small", EngineFixture.IMAGE)).cloudInitSha256());
    }

    @Test
    void domainsOfAnotherEntryOnTheSameHostsAreLeftOutAndItListsOnlyItsOwn() {
        InstanceEngine<PresetBaseImages.Image> other = fixture.engineOfEntry(EngineFixture.OTHER_ENTRY);
        other.create(Requests.request("proxy-x", new Placement("host-1", "small", EngineFixture.IMAGE)),
                Requests.deadline());
        other.create(Requests.request("proxy-y", new Placement("host-2", "small", EngineFixture.IMAGE)),
                Requests.deadline());

        assertThat(ids(fixture.engine.listManaged(Requests.deadline()))).containsExactly("host-1/proxy-a",
                "host-1/proxy-b", "host-2/proxy-c");
        assertThat(ids(other.listManaged(Requests.deadline()))).containsExactly("host-1/proxy-x", "host-2/proxy-y");
    }

    @Test
    void aDomainDefinedBeforeEntriesWereRecordedIsListedByNoEntry() {
        first.putDomain("pre-scoping", DomainState.SHUTOFF, PlatformMetadata.withoutEntry("uid-pre-scoping"));
        InstanceEngine<PresetBaseImages.Image> other = fixture.engineOfEntry(EngineFixture.OTHER_ENTRY);

        assertThat(ids(fixture.engine.listManaged(Requests.deadline()))).doesNotContain("host-1/pre-scoping")
                .hasSize(3);
        assertThat(other.listManaged(Requests.deadline())).isEmpty();
        assertThat(first.domain("pre-scoping").state).isEqualTo(DomainState.SHUTOFF);
    }

    @Test
    void aDomainWhoseMetadataCannotBeReadIsSkipped() {
        first.domain("proxy-a").metadataFailure = FakeLibvirtHost.error(LibvirtErrorCode.NO_DOMAIN, "Domain not found");

        assertThat(ids(fixture.engine.listManaged(Requests.deadline()))).containsExactly("host-1/proxy-b",
                "host-2/proxy-c");
    }

    @Test
    void aDomainWithIncompleteMetadataIsSkipped() {
        first.domain("proxy-a").metadata = "<ep:instance xmlns:ep='https://egressproxies.dev/xmlns/instance/1'>"
                + "<ep:uid>uid-proxy-a</ep:uid></ep:instance>";

        assertThat(ids(fixture.engine.listManaged(Requests.deadline()))).containsExactly("host-1/proxy-b",
                "host-2/proxy-c");
    }

    @Test
    void aDomainWhoseStateCannotBeReadIsSkipped() {
        second.domain("proxy-c").stateFailure = FakeLibvirtHost.error(LibvirtErrorCode.OPERATION_FAILED, "mid teardown");

        assertThat(ids(fixture.engine.listManaged(Requests.deadline()))).containsExactly("host-1/proxy-a",
                "host-1/proxy-b");
    }

    @Test
    void anUnreachableHostFailsTheWholeCall() {
        fixture.connections.breakHost("host-2", ErrorKind.TRANSIENT);

        ProviderException error = catchProviderException(() -> fixture.engine.listManaged(Requests.deadline()));

        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(error.operation()).isEqualTo(Operation.LIST_MANAGED);
        assertThat(error.entry()).isEqualTo(EngineFixture.ENTRY);
        assertThat(error.instanceId()).isEmpty();
        assertThat(error.detail()).contains("host 'host-2' (root@127.0.0.1:2222) could not be reached");
    }

    @Test
    void aLinkThatBreaksWhileReadingOneDomainFailsTheWholeCall() {
        second.domain("proxy-c").metadataFailure = FakeLibvirtHost.error(LibvirtErrorCode.RPC, "connection reset");

        ProviderException error = catchProviderException(() -> fixture.engine.listManaged(Requests.deadline()));

        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(error.getCause()).isInstanceOf(LibvirtException.class);
    }

    @Test
    void aHostThatCannotListItsDomainsFailsTheWholeCall() {
        first.failNext("listAllDomains", FakeLibvirtHost.error(LibvirtErrorCode.INTERNAL_ERROR, "busy"));

        ProviderException error = catchProviderException(() -> fixture.engine.listManaged(Requests.deadline()));

        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(error.detail()).contains("listing the domains: busy");
    }

    private static List<String> ids(List<Instance> instances) {
        return instances.stream().map(Instance::id).toList();
    }
}

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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** get: the state mapping, the choice of address, the metadata, NOT_FOUND, and domains of other entries. */
class GetTest {
    private final EngineFixture fixture = EngineFixture.oneHost();
    private final FakeLibvirtHost host = fixture.host();
    private String id;

    @BeforeEach
    void createInstance() {
        fixture.cacheBaseImage();
        id = fixture.create("proxy-1");
    }

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void aRunningDomainWithAnArpAddressIsRunning() {
        addresses(AddressSource.ARP, ipv4("192.0.2.10"));

        Instance instance = fixture.engine.get(id, Requests.deadline());

        assertThat(instance).isEqualTo(new Instance("host-1/proxy-1", "proxy-1", "192.0.2.10", InstanceState.RUNNING,
                "uid-proxy-1", TestProviderContext.NOW, new Placement("host-1", "small", EngineFixture.IMAGE),
                EngineFixture.request("proxy-1").cloudInitSha256()));
    }

    @ParameterizedTest(name = "{0} with address \"{1}\" is {2}")
    @CsvSource({
            "NO_STATE, '', PROVISIONING",
            "RUNNING, '', PROVISIONING",
            "RUNNING, 192.0.2.10, RUNNING",
            "BLOCKED, 192.0.2.10, RUNNING",
            "BLOCKED, '', PROVISIONING",
            "PAUSED, '', STOPPED",
            "SHUTDOWN, '', STOPPED",
            "SHUTOFF, '', STOPPED",
            "CRASHED, '', STOPPED",
            "PM_SUSPENDED, '', STOPPED"})
    void libvirtStatesMapOntoTheContractsStates(DomainState state, String address, InstanceState expected) {
        host.domain("proxy-1").state = state;
        if (!address.isEmpty()) {
            addresses(AddressSource.ARP, ipv4(address));
        }

        Instance instance = fixture.engine.get(id, Requests.deadline());

        assertThat(instance.state()).isEqualTo(expected);
        assertThat(instance.ip()).isEqualTo(state.isActive() ? address : "");
    }

    @Test
    void addressesAreNotAskedForWhileTheDomainIsNotActive() {
        host.domain("proxy-1").state = DomainState.SHUTOFF;
        host.resetCalls();

        fixture.engine.get(id, Requests.deadline());

        assertThat(host.callLog()).containsExactly("lookupDomain", "domainMetadata", "domainState");
    }

    @Test
    void loopbackLinkLocalUnspecifiedAndIpv6AddressesAreSkipped() {
        addresses(AddressSource.ARP, ipv4("127.0.0.1"), ipv4("169.254.10.1"), ipv4("0.0.0.0"),
                new InterfaceAddress("vnet0", "2001:db8::1", false), ipv4("203.0.113.7"), ipv4("198.51.100.1"));

        assertThat(fixture.engine.get(id, Requests.deadline()).ip()).isEqualTo("203.0.113.7");
    }

    @Test
    void theAgentIsAskedWhenArpKnowsOnlyUnroutableAddresses() {
        addresses(AddressSource.ARP, ipv4("169.254.1.1"));
        addresses(AddressSource.AGENT, ipv4("127.0.0.1"), ipv4("10.1.2.3"));

        assertThat(fixture.engine.get(id, Requests.deadline()).ip()).isEqualTo("10.1.2.3");
    }

    @Test
    void anArpErrorMeansNoAddressYetAndTheAgentIsAsked() {
        host.domain("proxy-1").addressFailures.put(AddressSource.ARP,
                FakeLibvirtHost.error(LibvirtErrorCode.INTERNAL_ERROR, "wrong nlmsg len"));
        addresses(AddressSource.AGENT, ipv4("10.1.2.3"));

        Instance instance = fixture.engine.get(id, Requests.deadline());

        assertThat(instance.ip()).isEqualTo("10.1.2.3");
        assertThat(instance.state()).isEqualTo(InstanceState.RUNNING);
    }

    @Test
    void errorsFromBothSourcesMeanProvisioning() {
        host.domain("proxy-1").addressFailures.put(AddressSource.ARP,
                FakeLibvirtHost.error(LibvirtErrorCode.SYSTEM_ERROR, "netlink: permission denied"));
        host.domain("proxy-1").addressFailures.put(AddressSource.AGENT,
                FakeLibvirtHost.error(LibvirtErrorCode.AGENT_UNRESPONSIVE, "guest agent is not connected"));

        Instance instance = fixture.engine.get(id, Requests.deadline());

        assertThat(instance.state()).isEqualTo(InstanceState.PROVISIONING);
        assertThat(instance.ip()).isEmpty();
    }

    @Test
    void noAddressFromEitherSourceIsProvisioning() {
        Instance instance = fixture.engine.get(id, Requests.deadline());

        assertThat(instance.state()).isEqualTo(InstanceState.PROVISIONING);
        assertThat(instance.ip()).isEmpty();
        assertThat(host.callCounts()).containsEntry("interfaceAddresses(ARP)", 1)
                .containsEntry("interfaceAddresses(AGENT)", 1);
    }

    @Test
    void anAddressSourceThatBreaksTheLinkFailsTheCall() {
        host.domain("proxy-1").addressFailures.put(AddressSource.ARP, new IllegalStateException("socket closed"));

        ProviderException error = catchProviderException(() -> fixture.engine.get(id, Requests.deadline()));

        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
    }

    @Test
    void aMissingDomainIsNotFound() {
        ProviderException error = catchProviderException(() -> fixture.engine.get("host-1/proxy-9",
                Requests.deadline()));

        assertThat(error.kind()).isEqualTo(ErrorKind.NOT_FOUND);
        assertThat(error.operation()).isEqualTo(Operation.GET);
        assertThat(error.entry()).isEqualTo(EngineFixture.ENTRY);
        assertThat(error.instanceId()).isEqualTo("host-1/proxy-9");
        assertThat(error.detail()).contains("no domain 'proxy-9' on host 'host-1'");
    }

    @Test
    void aDomainThatVanishesDuringGetIsNotFound() {
        host.domain("proxy-1").stateFailure = FakeLibvirtHost.error(LibvirtErrorCode.NO_DOMAIN, "Domain not found");

        ProviderException error = catchProviderException(() -> fixture.engine.get(id, Requests.deadline()));

        assertThat(error.kind()).isEqualTo(ErrorKind.NOT_FOUND);
    }

    @Test
    void aDomainThisPlatformDidNotCreateHasNoUidAndNoCreationTime() {
        host.putDomain("by-hand", DomainState.SHUTOFF, null);

        Instance instance = fixture.engine.get("host-1/by-hand", Requests.deadline());

        assertThat(instance.uid()).isEmpty();
        assertThat(instance.createdAt()).isNull();
        assertThat(instance.state()).isEqualTo(InstanceState.STOPPED);
    }

    @Test
    void aDomainOfAnotherEntryIsRefusedNamingThatEntry() {
        InstanceEngine<PresetBaseImages.Image> other = fixture.engineOfEntry(EngineFixture.OTHER_ENTRY);
        String otherId = other.create(EngineFixture.request("proxy-2"), Requests.deadline());

        ProviderException error = catchProviderException(() -> fixture.engine.get(otherId, Requests.deadline()));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.operation()).isEqualTo(Operation.GET);
        assertThat(error.entry()).isEqualTo(EngineFixture.ENTRY);
        assertThat(error.instanceId()).isEqualTo("host-1/proxy-2");
        assertThat(error.detail()).isEqualTo("domain 'proxy-2' on host 'host-1' was created through provider entry"
                + " 'kvm2-test', not 'kvm-test', so it is not reported through this entry: get it through entry"
                + " 'kvm2-test'");
        assertThat(other.get(otherId, Requests.deadline()).uid()).isEqualTo("uid-proxy-2");
        assertThat(catchProviderException(() -> other.get(id, Requests.deadline())).detail())
                .contains("created through provider entry 'kvm-test', not 'kvm2-test'");
    }

    @Test
    void aDomainDefinedBeforeEntriesWereRecordedIsRefusedSayingHowToRemoveIt() {
        host.putDomain("pre-scoping", DomainState.RUNNING, PlatformMetadata.withoutEntry("uid-pre-scoping"));

        ProviderException error = catchProviderException(() -> fixture.engine.get("host-1/pre-scoping",
                Requests.deadline()));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.detail()).isEqualTo("domain 'pre-scoping' on host 'host-1' was created by egress-proxies"
                + " before domains recorded their provider entry, so no entry manages it and it is not reported: if"
                + " nothing uses it any more, remove it by hand: 'virsh destroy pre-scoping' (if it runs), 'virsh"
                + " undefine pre-scoping --managed-save --snapshots-metadata --nvram', 'virsh vol-delete --pool"
                + " egress-test pre-scoping.qcow2' and 'virsh vol-delete --pool egress-test pre-scoping.seed.iso'");
    }

    @Test
    void metadataThatCannotBeReadIsPermanent() {
        host.domain("proxy-1").metadata = "<ep:instance xmlns:ep='https://egressproxies.dev/xmlns/instance/1'>"
                + "<ep:uid>u</ep:uid><ep:created>yesterday</ep:created></ep:instance>";

        ProviderException error = catchProviderException(() -> fixture.engine.get(id, Requests.deadline()));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.detail()).startsWith("domain 'proxy-1' on host 'host-1': ")
                .contains("'yesterday' is not an RFC 3339 timestamp", "virsh metadata");
    }

    private void addresses(AddressSource source, InterfaceAddress... addresses) {
        host.domain("proxy-1").addresses.put(source, List.of(addresses));
    }

    private static InterfaceAddress ipv4(String address) {
        return new InterfaceAddress("vnet0", address, true);
    }
}

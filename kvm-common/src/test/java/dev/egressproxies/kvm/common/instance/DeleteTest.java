package dev.egressproxies.kvm.common.instance;

import static dev.egressproxies.kvm.common.instance.EngineFixture.BASE_VOLUME;
import static dev.egressproxies.kvm.common.instance.EngineFixture.OTHER_ENTRY;
import static dev.egressproxies.kvm.common.instance.EngineFixture.POOL;
import static dev.egressproxies.kvm.common.instance.EngineFixture.overlay;
import static dev.egressproxies.kvm.common.instance.EngineFixture.seed;
import static dev.egressproxies.kvm.common.testing.Requests.catchProviderException;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrorCode;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.DomainState;
import dev.egressproxies.kvm.common.testing.FakeLibvirtHost;
import dev.egressproxies.kvm.common.testing.InstanceVolumes;
import dev.egressproxies.kvm.common.testing.PlatformMetadata;
import dev.egressproxies.kvm.common.testing.Requests;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * delete: every step idempotent, volumes removed by name, a missing pool meaning nothing is left,
 * and domains this entry did not create refused with nothing changed.
 */
class DeleteTest {
    private final EngineFixture fixture = EngineFixture.oneHost();
    private final FakeLibvirtHost host = fixture.host();
    private String id;

    @BeforeEach
    void createInstance() {
        fixture.cacheBaseImage();
        id = fixture.create("proxy-1");
        host.resetCalls();
    }

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void aRunningInstanceIsDestroyedUndefinedAndItsVolumesDeleted() {
        fixture.engine.delete(id, Requests.deadline());

        assertThat(host.domainNames()).isEmpty();
        assertThat(host.volumeNames(POOL)).as("the base image stays for other instances").containsExactlyInAnyOrder(BASE_VOLUME);
        assertThat(host.callLog()).containsExactly("lookupDomain", "domainMetadata", "destroyDomain", "undefineDomain",
                "lookupPool",
                "lookupVolume", "deleteVolume", "lookupVolume", "deleteVolume", "listVolumeNames");
    }

    @Test
    void aStoppedDomainIsUndefinedWithoutDestroyFailing() {
        host.domain("proxy-1").state = DomainState.SHUTOFF;

        fixture.engine.delete(id, Requests.deadline());

        assertThat(host.domainNames()).isEmpty();
        assertThat(host.volumeNames(POOL)).containsExactlyInAnyOrder(BASE_VOLUME);
    }

    @Test
    void volumesAreDeletedByNameWhenTheDomainIsAlreadyGone() {
        host.domain("proxy-1").state = DomainState.SHUTOFF;
        host.undefineDomain(host.lookupDomain("proxy-1").orElseThrow());

        fixture.engine.delete(id, Requests.deadline());

        assertThat(host.volumeNames(POOL)).containsExactlyInAnyOrder(BASE_VOLUME);
    }

    @Test
    void whatACreateLeftBeforeDefiningTheDomainIsCleanedUp() {
        host.putVolume(POOL, overlay("proxy-2"), new byte[10]);

        fixture.engine.delete("host-1/proxy-2", Requests.deadline());

        assertThat(host.volumeNames(POOL)).containsExactlyInAnyOrder(BASE_VOLUME, overlay("proxy-1"),
                seed("proxy-1"));
    }

    @Test
    void aDomainEgressProxiesDidNotCreateIsRefusedAndKeptWithItsVolumes() {
        host.putDomain("by-hand", DomainState.RUNNING, null);
        host.putVolume(POOL, overlay("by-hand"), new byte[10]);

        ProviderException error = catchProviderException(
                () -> fixture.engine.delete("host-1/by-hand", Requests.deadline()));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.operation()).isEqualTo(Operation.DELETE);
        assertThat(error.detail()).contains("was not created by egress-proxies");
        assertThat(host.domainNames()).contains("by-hand");
        assertThat(host.volumeNames(POOL)).contains(overlay("by-hand"));
    }

    @Test
    void aDomainOfAnotherEntryIsRefusedNamingThatEntryAndKeptWithItsVolumes() {
        InstanceEngine<PresetBaseImages.Image> other = fixture.engineOfEntry(OTHER_ENTRY);
        String otherId = other.create(EngineFixture.request("proxy-2"), Requests.deadline());
        FakeLibvirtHost.VolumeRecord overlay = host.volume(POOL, InstanceVolumes.overlay(OTHER_ENTRY, "proxy-2"));
        FakeLibvirtHost.VolumeRecord seed = host.volume(POOL, InstanceVolumes.seed(OTHER_ENTRY, "proxy-2"));
        host.resetCalls();

        ProviderException error = catchProviderException(() -> fixture.engine.delete(otherId, Requests.deadline()));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.operation()).isEqualTo(Operation.DELETE);
        assertThat(error.detail()).isEqualTo("domain 'proxy-2' on host 'host-1' was created through provider entry"
                + " 'kvm2-test', not 'kvm-test', so it is not deleted through this entry: delete it through entry"
                + " 'kvm2-test'");
        assertThat(host.callLog()).as("only looked at").containsExactly("lookupDomain", "domainMetadata");
        assertThat(host.domain("proxy-2").state).isEqualTo(DomainState.RUNNING);
        assertThat(overlay).isNotNull();
        assertThat(host.volume(POOL, InstanceVolumes.overlay(OTHER_ENTRY, "proxy-2"))).isSameAs(overlay);
        assertThat(host.volume(POOL, InstanceVolumes.seed(OTHER_ENTRY, "proxy-2"))).isSameAs(seed);
        assertThat(other.listManaged(Requests.deadline())).extracting(instance -> instance.id())
                .containsExactly(otherId);
    }

    @Test
    void theVolumesAnotherEntrysCrashedCreateLeftOfANameWithoutDomainAreKept() {
        InstanceEngine<PresetBaseImages.Image> other = fixture.engineOfEntry(OTHER_ENTRY);
        Map<String, FakeLibvirtHost.VolumeRecord> before = fixture.volumes();
        host.failNext("defineDomain", FakeLibvirtHost.error(LibvirtErrorCode.INTERNAL_ERROR, "busy"));
        assertThat(catchProviderException(() -> other.create(EngineFixture.request("proxy-2"), Requests.deadline()))
                .kind()).isEqualTo(ErrorKind.TRANSIENT);
        Map<String, FakeLibvirtHost.VolumeRecord> othersLeftovers = fixture.volumes();
        othersLeftovers.keySet().removeAll(before.keySet());
        assertThat(othersLeftovers).as("the other entry's overlay and seed").hasSize(2);

        fixture.engine.delete("host-1/proxy-2", Requests.deadline());

        othersLeftovers.forEach((name, volume) -> assertThat(host.volume(POOL, name)).as(name).isSameAs(volume));
        assertThat(host.volumeNames(POOL)).hasSize(5);
    }

    @Test
    void aDomainDefinedBeforeEntriesWereRecordedIsRefusedAndKeptWithItsVolumes() {
        host.putDomain("pre-scoping", DomainState.RUNNING, PlatformMetadata.withoutEntry("uid-pre-scoping"));
        host.putVolume(POOL, "pre-scoping.qcow2", new byte[10]);
        host.putVolume(POOL, "pre-scoping.seed.iso", new byte[10]);

        ProviderException error = catchProviderException(
                () -> fixture.engine.delete("host-1/pre-scoping", Requests.deadline()));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.detail()).contains("before domains recorded their provider entry", "it is not deleted",
                "'virsh undefine pre-scoping --managed-save --snapshots-metadata --nvram'",
                "'virsh vol-delete --pool egress-test pre-scoping.qcow2'",
                "'virsh vol-delete --pool egress-test pre-scoping.seed.iso'");
        assertThat(host.domain("pre-scoping").state).isEqualTo(DomainState.RUNNING);
        assertThat(host.volumeNames(POOL)).contains("pre-scoping.qcow2", "pre-scoping.seed.iso");
    }

    @Test
    void deletingTwiceSucceedsBothTimes() {
        fixture.engine.delete(id, Requests.deadline());

        fixture.engine.delete(id, Requests.deadline());

        assertThat(host.domainNames()).isEmpty();
    }

    @Test
    void aMissingPoolMeansThereAreNoVolumesLeft() {
        host.removePool(POOL);

        fixture.engine.delete(id, Requests.deadline());

        assertThat(host.domainNames()).isEmpty();
    }

    @Test
    void aDomainThatVanishesBeforeDestroyIsNotUndefinedButItsVolumesGo() {
        host.failNext("destroyDomain", FakeLibvirtHost.error(LibvirtErrorCode.NO_DOMAIN, "Domain not found"));

        fixture.engine.delete(id, Requests.deadline());

        assertThat(host.callCounts()).doesNotContainKey("undefineDomain");
        assertThat(host.volumeNames(POOL)).containsExactlyInAnyOrder(BASE_VOLUME);
    }

    @Test
    void aDomainThatVanishesBeforeUndefineIsFine() {
        host.failNext("undefineDomain", FakeLibvirtHost.error(LibvirtErrorCode.NO_DOMAIN, "Domain not found"));

        fixture.engine.delete(id, Requests.deadline());

        assertThat(host.volumeNames(POOL)).containsExactlyInAnyOrder(BASE_VOLUME);
    }

    @Test
    void aVolumeThatVanishesBeforeItsDeleteIsFine() {
        host.failNext("deleteVolume", FakeLibvirtHost.error(LibvirtErrorCode.NO_STORAGE_VOLUME, "gone"));

        fixture.engine.delete(id, Requests.deadline());

        assertThat(host.callCounts()).containsEntry("deleteVolume", 2);
    }

    @Test
    void aFailedStepIsTransientSaysWhatWasBeingDoneAndTheRetryFinishes() {
        host.failNext("undefineDomain", FakeLibvirtHost.error(LibvirtErrorCode.OPERATION_FAILED, "nvram busy"));

        ProviderException error = catchProviderException(() -> fixture.engine.delete(id, Requests.deadline()));

        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(error.operation()).isEqualTo(Operation.DELETE);
        assertThat(error.instanceId()).isEqualTo(id);
        assertThat(error.detail()).contains("undefining domain proxy-1: nvram busy", "OPERATION_FAILED");

        fixture.engine.delete(id, Requests.deadline());
        assertThat(host.domainNames()).isEmpty();
        assertThat(host.volumeNames(POOL)).containsExactlyInAnyOrder(BASE_VOLUME);
    }
}

package dev.egressproxies.kvm.common.instance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.Placement;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.DomainState;
import dev.egressproxies.kvm.common.testing.FakeLibvirtHost;
import dev.egressproxies.kvm.common.testing.PlatformMetadata;
import dev.egressproxies.kvm.common.testing.Requests;
import dev.egressproxies.kvm.common.xml.InstanceMetadata;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What an instance was created as (machine type, image, user-data digest) goes into its domain's
 * metadata, and get and listManaged report it with the zone, the host it is on; domains created
 * before report {@code ""} for what they lack.
 */
class RecordedPlacementTest {
    private final EngineFixture fixture = EngineFixture.hosts(2);
    private final FakeLibvirtHost second = fixture.hosts.get(1);

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void getAndListManagedReportThePlacementAndUserDataDigestOfTheCreate() {
        CreateRequest request = Requests.request("proxy-1", new Placement("host-2", "large", EngineFixture.RAW_IMAGE));
        String id = fixture.engine.create(request, Requests.deadline());

        Instance got = fixture.engine.get(id, Requests.deadline());

        Placement expected = new Placement("host-2", "large", EngineFixture.RAW_IMAGE);
        assertThat(got.placement()).isEqualTo(expected);
        assertThat(got.userDataSha256()).isEqualTo(request.cloudInitSha256()).hasSize(64);
        assertThat(fixture.engine.listManaged(Requests.deadline())).singleElement().satisfies(listed -> {
            assertThat(listed.placement()).isEqualTo(expected);
            assertThat(listed.userDataSha256()).isEqualTo(request.cloudInitSha256());
        });
        InstanceMetadata metadata = InstanceMetadata.parse(second.domainMetadata(
                second.lookupDomain("proxy-1").orElseThrow(), InstanceMetadata.NAMESPACE).orElseThrow());
        assertThat(metadata.machineType()).isEqualTo("large");
        assertThat(metadata.image()).isEqualTo(EngineFixture.RAW_IMAGE);
    }

    @Test
    void aStoppedInstanceIsListedWithItsPlacementToo() {
        String id = fixture.engine.create(Requests.request("proxy-1", new Placement("host-1", "small",
                EngineFixture.IMAGE)), Requests.deadline());
        fixture.hosts.get(0).domain("proxy-1").state = DomainState.SHUTOFF;

        assertThat(fixture.engine.listManaged(Requests.deadline())).singleElement().satisfies(listed -> {
            assertThat(listed.id()).isEqualTo(id);
            assertThat(listed.placement()).isEqualTo(new Placement("host-1", "small", EngineFixture.IMAGE));
        });
    }

    @Test
    void aDomainCreatedBeforePlacementsWereRecordedReportsOnlyItsZone() {
        second.putDomain("proxy-old", DomainState.SHUTOFF, PlatformMetadata.of(EngineFixture.ENTRY, "uid-old"));

        Instance got = fixture.engine.get("host-2/proxy-old", Requests.deadline());

        assertThat(got.placement()).isEqualTo(new Placement("host-2", "", ""));
        assertThat(got.userDataSha256()).isEmpty();
        assertThat(fixture.engine.listManaged(Requests.deadline())).singleElement()
                .satisfies(listed -> assertThat(listed.placement()).isEqualTo(new Placement("host-2", "", "")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"debian-12", "https://images.example.org/debian-12.qcow2",
            "http://images.example.org:8080/a/b.qcow2.xz"})
    void keysAndPlainUrlsAreRecordedAsRequested(String image) {
        assertThat(InstanceCreator.recordedImage(image)).isEqualTo(image);
    }

    @ParameterizedTest
    @ValueSource(strings = {"https://user:secret@images.example.org/debian-12.qcow2",
            "https://images.example.org/debian-12.qcow2?X-Amz-Signature=abc",
            "https://images.example.org/debian-12.qcow2#token"})
    void urlsThatMayCarryCredentialsAreNotRecorded(String image) {
        assertThat(InstanceCreator.recordedImage(image)).as("unknown, never the secret").isEmpty();
    }
}

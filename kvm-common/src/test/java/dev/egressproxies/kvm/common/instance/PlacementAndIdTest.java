package dev.egressproxies.kvm.common.instance;

import static dev.egressproxies.kvm.common.testing.Requests.catchProviderException;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.testing.Requests;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Requests, placements and provider IDs that are wrong: each is PERMANENT, says what is valid, and
 * fails before any host is called.
 */
class PlacementAndIdTest {
    private final EngineFixture fixture = EngineFixture.hosts(2);

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void anUnknownZoneNamesTheConfiguredHosts() {
        ProviderException error = rejectedCreate(new Placement("host-9", "small", EngineFixture.IMAGE));

        assertThat(error.detail()).contains("placement.zone 'host-9' is not a host of provider entry 'kvm-test'",
                "[host-1, host-2]");
    }

    @Test
    void anEmptyZoneWithSeveralHostsIsValidAndPlaced() {
        fixture.cacheBaseImage();
        CreateRequest request = Requests.request("proxy-1", new Placement("", "small", EngineFixture.IMAGE));
        fixture.engine.validate(request);

        String id = fixture.engine.create(request, Requests.deadline());

        assertThat(id).isIn("host-1/proxy-1", "host-2/proxy-1");
    }

    @Test
    void anEmptyZoneWithOneHostPicksIt() {
        try (EngineFixture single = EngineFixture.oneHost()) {
            single.cacheBaseImage();

            String id = single.engine.create(Requests.request("proxy-1", new Placement("", "small",
                    EngineFixture.IMAGE)), Requests.deadline());

            assertThat(id).isEqualTo("host-1/proxy-1");
        }
    }

    @Test
    void anUnknownMachineTypeNamesTheConfiguredOnes() {
        ProviderException error = rejectedCreate(new Placement("host-1", "huge", EngineFixture.IMAGE));

        assertThat(error.detail()).contains("placement.machineType 'huge' is not configured", "[small, large]");
    }

    @Test
    void anUnknownImageNamesTheConfiguredOnes() {
        ProviderException error = rejectedCreate(new Placement("host-1", "small", "windows"));

        assertThat(error.detail()).contains("placement.image 'windows' is not configured", "[debian-12, alpine-raw, debian-12-uefi]");
    }

    @Test
    void anInvalidRequestIsRejectedBeforeThePlacementIsLookedAt() {
        CreateRequest request = new CreateRequest("Not_A_Label", "uid", new Placement("host-9", "", ""), "");

        ProviderException error = catchProviderException(() -> fixture.engine.create(request, Requests.deadline()));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.detail()).contains("is not a DNS label");
        assertThat(fixture.connections.callCount()).isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "proxy-1", "host-1/", "/proxy-1", "host-1/proxy-1/x", "host-1/Proxy", "host 1/proxy-1",
            "host-1/proxy_1"})
    void malformedIdsArePermanentForGetAndDelete(String id) {
        ProviderException get = catchProviderException(() -> fixture.engine.get(id, Requests.deadline()));
        ProviderException delete = catchProviderException(() -> fixture.engine.delete(id, Requests.deadline()));

        for (ProviderException error : new ProviderException[] {get, delete}) {
            assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
            assertThat(error.instanceId()).isEqualTo(id);
            assertThat(error.detail()).contains("is malformed", "HOST/NAME");
        }
        assertThat(get.operation()).isEqualTo(Operation.GET);
        assertThat(delete.operation()).isEqualTo(Operation.DELETE);
        assertThat(fixture.connections.callCount()).isZero();
    }

    @Test
    void anIdOfAHostThatIsNotConfiguredIsPermanent() {
        ProviderException error = catchProviderException(() -> fixture.engine.delete("host-7/proxy-1",
                Requests.deadline()));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.detail()).contains("host 'host-7' of this provider ID is not configured", "add it back");
        assertThat(fixture.connections.callCount()).isZero();
    }

    @Test
    void callsGoToTheHostTheIdNamesAndTheClaimsHost() {
        fixture.engine.delete("host-2/proxy-1", Requests.deadline());

        assertThat(fixture.connections.endpoints()).extracting(endpoint -> endpoint.name())
                .as("the host of the ID, and host-1 for the name's claim").containsOnly("host-1", "host-2");
        assertThat(fixture.connections.endpoints()).filteredOn(endpoint -> endpoint.name().equals("host-2"))
                .singleElement().satisfies(endpoint -> {
            assertThat(endpoint.name()).isEqualTo("host-2");
            assertThat(endpoint.port()).isEqualTo(2222);
            assertThat(endpoint.user()).isEqualTo("root");
            assertThat(endpoint.socket()).isEqualTo("/var/run/libvirt/libvirt-sock");
        });
    }

    @Test
    void validateAcceptsAValidRequestWithoutCallingAHost() {
        fixture.engine.validate(Requests.request("proxy-1", new Placement("host-2", "large", EngineFixture.RAW_IMAGE)));

        assertThat(fixture.connections.callCount()).isZero();
    }

    @Test
    void validateRejectsAnInvalidRequestAsCreateDoes() {
        CreateRequest request = new CreateRequest("Not_A_Label", "uid", new Placement("host-1", "small",
                EngineFixture.IMAGE), "");

        ProviderException created = catchProviderException(() -> fixture.engine.create(request, Requests.deadline()));
        ProviderException validated = catchProviderException(() -> fixture.engine.validate(request));

        assertThat(validated.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(validated.getMessage()).isEqualTo(created.getMessage());
    }

    /** Create's refusal of the placement, which validate gives alike, both before any host call. */
    private ProviderException rejectedCreate(Placement placement) {
        CreateRequest request = Requests.request("proxy-1", placement);
        ProviderException validated = catchProviderException(() -> fixture.engine.validate(request));
        ProviderException error = catchProviderException(() -> fixture.engine.create(request, Requests.deadline()));
        assertThat(validated.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(validated.getMessage()).as("validate's message").isEqualTo(error.getMessage());
        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.operation()).isEqualTo(Operation.CREATE);
        assertThat(error.instanceId()).isEqualTo("proxy-1");
        assertThat(fixture.connections.callCount()).as("host calls").isZero();
        assertThat(fixture.images.ensures()).isZero();
        return error;
    }
}

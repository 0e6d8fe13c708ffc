package dev.egressproxies.fake;

import static dev.egressproxies.fake.TestProviders.START;
import static dev.egressproxies.fake.TestProviders.deadline;
import static dev.egressproxies.fake.TestProviders.providerError;
import static dev.egressproxies.fake.TestProviders.request;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.ProviderException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PlacementTest {
    private final FakeProvider provider = TestProviders.build(
            new FakeConfig(List.of("zone-a", "zone-b"), List.of("small", "large"), List.of("debian-12"), null, null,
                    null, null),
            new ManualClock(START), Path.of("unused"));

    @AfterEach
    void nothingWasCreated() {
        assertThat(provider.listManaged(deadline())).isEmpty();
    }

    @Test
    void unknownZoneListsTheConfiguredZones() {
        ProviderException error = createFails(request("proxy-1", new Placement("zone-z", "small", "debian-12")));

        assertThat(error.detail()).contains("placement.zone 'zone-z' is not configured", "[zone-a, zone-b]");
    }

    @Test
    void unknownMachineTypeListsTheConfiguredOnes() {
        ProviderException error = createFails(request("proxy-1", new Placement("zone-a", "huge", "debian-12")));

        assertThat(error.detail()).contains("placement.machineType 'huge' is not configured", "[small, large]",
                "machineTypes of provider entry 'fake-test'");
    }

    @Test
    void unknownImageListsTheConfiguredOnes() {
        ProviderException error = createFails(request("proxy-1", new Placement("zone-a", "small", "windows")));

        assertThat(error.detail()).contains("placement.image 'windows' is not configured", "[debian-12]");
    }

    @Test
    void nameThatIsNoDnsLabelIsRejectedBeforeThePlacement() {
        ProviderException error = createFails(request("Proxy_1", new Placement("zone-z", "huge", "windows")));

        assertThat(error.detail()).contains("not a DNS label");
    }

    @Test
    void emptyUidIsRejected() {
        ProviderException error = createFails(new CreateRequest("proxy-1", "", new Placement("zone-a", "small", "debian-12"), ""));

        assertThat(error.detail()).contains("uid is empty");
    }

    private ProviderException createFails(CreateRequest request) {
        return providerError(() -> provider.create(request, deadline()), ErrorKind.PERMANENT, Operation.CREATE,
                request.name());
    }
}

package dev.egressproxies.fake;

import static dev.egressproxies.fake.TestProviders.START;
import static dev.egressproxies.fake.TestProviders.deadline;
import static dev.egressproxies.fake.TestProviders.providerError;
import static dev.egressproxies.fake.TestProviders.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.api.ZoneChoice;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One name is one instance per entry across its zones; unreadable zones make what needs them
 * TRANSIENT; instances report the placement and user-data digest they were created with; and
 * {@link FakeProvider#validate} makes exactly create's checks.
 */
class ZonesAndPlacementTest {
    private static final Placement IN_A = new Placement("zone-a", "small", "debian-12");
    private static final Placement IN_B = new Placement("zone-b", "large", "debian-12");

    @TempDir
    Path directory;

    private final ManualClock clock = new ManualClock(START);

    private FakeProvider twoZones(String entry, Path stateFile) {
        FakeConfig config = new FakeConfig(List.of("zone-a", "zone-b"), List.of("small", "large"),
                List.of("debian-12"), null, stateFile, null, null);
        return TestProviders.build(entry, config, clock, directory);
    }

    private FakeProvider twoZones() {
        return twoZones(TestProviders.ENTRY, null);
    }

    @Test
    void nameInAnotherZoneIsPermanentNamesTheExistingIdAndChangesNothing() throws Exception {
        Path stateFile = directory.resolve("state.json");
        FakeProvider provider = twoZones(TestProviders.ENTRY, stateFile);
        String inA = provider.create(request("proxy-1", IN_A), deadline());
        byte[] before = Files.readAllBytes(stateFile);

        ProviderException error = providerError(() -> provider.create(request("proxy-1", IN_B), deadline()),
                ErrorKind.PERMANENT, Operation.CREATE, "zone-b/proxy-1");

        assertThat(error.detail()).contains("'zone-a/proxy-1'", "one instance per entry", "delete it first");
        assertThat(provider.listManaged(deadline())).extracting(Instance::id).containsExactly(inA);
        assertThat(Files.readAllBytes(stateFile)).as("the state file after the refusal").isEqualTo(before);
    }

    @Test
    void nameMayMoveZonesOnceTheOldInstanceIsDeleted() {
        FakeProvider provider = twoZones();
        String inA = provider.create(request("proxy-1", IN_A), deadline());
        provider.delete(inA, deadline());

        assertThat(provider.create(request("proxy-1", IN_B), deadline())).isEqualTo("zone-b/proxy-1");
    }

    @Test
    void anotherEntrysInstanceInAnotherZoneDoesNotHoldTheName() {
        Path stateFile = directory.resolve("shared.json");
        FakeProvider mine = twoZones(TestProviders.ENTRY, stateFile);
        FakeProvider theirs = twoZones("fake-other", stateFile);
        theirs.create(request("proxy-1", IN_A), deadline());

        assertThat(mine.create(request("proxy-1", IN_B), deadline())).isEqualTo("zone-b/proxy-1");
    }

    @Test
    void unmanagedInstanceInAnotherZoneDoesNotHoldTheName() {
        FakeProvider provider = twoZones();
        provider.addUnmanaged("zone-a", "proxy-1");

        assertThat(provider.create(request("proxy-1", IN_B), deadline())).isEqualTo("zone-b/proxy-1");
    }

    @Test
    void unreadableZoneMakesCreateTransientNamingTheZoneAndCreatesNothing() {
        FakeProvider provider = twoZones();
        provider.faults().makeZoneUnreadable("zone-b");

        ProviderException error = providerError(() -> provider.create(request("proxy-1", IN_A), deadline()),
                ErrorKind.TRANSIENT, Operation.CREATE, "zone-a/proxy-1");

        assertThat(error.detail()).contains("zone 'zone-b' cannot be read");
        provider.faults().clear();
        assertThat(provider.listManaged(deadline())).isEmpty();
    }

    @Test
    void unreadableZoneFailsListingWholeAndGetAndDeleteOfItsInstances() {
        FakeProvider provider = twoZones();
        String inA = provider.create(request("proxy-1", IN_A), deadline());
        String inB = provider.create(request("proxy-2", IN_B), deadline());
        provider.faults().makeZoneUnreadable("zone-b");

        assertThat(providerError(() -> provider.listManaged(deadline()), ErrorKind.TRANSIENT, Operation.LIST_MANAGED,
                "").detail()).contains("zone 'zone-b'");
        providerError(() -> provider.get(inB, deadline()), ErrorKind.TRANSIENT, Operation.GET, inB);
        providerError(() -> provider.delete(inB, deadline()), ErrorKind.TRANSIENT, Operation.DELETE, inB);
        assertThat(provider.get(inA, deadline()).name()).as("an instance of a readable zone").isEqualTo("proxy-1");

        provider.faults().clear();
        assertThat(provider.listManaged(deadline())).extracting(Instance::id).containsExactly(inA, inB);
    }

    @Test
    void getAndListReportThePlacementAndUserDataDigestOfCreate() {
        FakeProvider provider = twoZones();
        CreateRequest request = new CreateRequest("proxy-1", "uid-1", IN_B, "#cloud-config\nhostname: p1\n");
        String id = provider.create(request, deadline());

        Instance got = provider.get(id, deadline());
        assertThat(got.placement()).isEqualTo(IN_B);
        assertThat(got.userDataSha256()).isEqualTo(request.cloudInitSha256()).hasSize(64);
        assertThat(provider.listManaged(deadline())).singleElement().satisfies(listed -> {
            assertThat(listed.placement()).isEqualTo(IN_B);
            assertThat(listed.userDataSha256()).isEqualTo(request.cloudInitSha256());
        });
    }

    @Test
    void emptyZoneIsRecordedAsTheOnlyZone() {
        FakeProvider provider = TestProviders.inMemory();
        String id = provider.create(request("proxy-1", new Placement("", "small", "debian-12")), deadline());

        assertThat(provider.get(id, deadline()).placement()).isEqualTo(new Placement("zone-a", "small", "debian-12"));
    }

    @Test
    void repeatedCreateWithOtherValuesKeepsWhatTheInstanceWasCreatedWith() {
        FakeProvider provider = twoZones();
        String id = provider.create(request("proxy-1", IN_A), deadline());

        provider.create(new CreateRequest("proxy-1", "uid-1", new Placement("zone-a", "large", "debian-12"), "other"),
                deadline());

        Instance instance = provider.get(id, deadline());
        assertThat(instance.placement()).isEqualTo(IN_A);
        assertThat(instance.userDataSha256()).isEqualTo(request("proxy-1", IN_A).cloudInitSha256());
    }

    @Test
    void unmanagedInstanceReportsItsZoneOnly() {
        FakeProvider provider = twoZones();
        String id = provider.addUnmanaged("zone-b", "by-hand");

        Instance instance = provider.get(id, deadline());
        assertThat(instance.placement()).isEqualTo(new Placement("zone-b", "", ""));
        assertThat(instance.userDataSha256()).isEmpty();
    }

    @Test
    void emptyZoneAmongSeveralGoesToTheZoneWithFewestInstancesOfTheEntry() {
        FakeProvider provider = twoZones();
        Placement anyZone = new Placement("", "small", "debian-12");

        String first = provider.create(request("proxy-1", anyZone), deadline());
        String second = provider.create(request("proxy-2", anyZone), deadline());

        assertThat(List.of(first, second)).containsExactly("zone-a/proxy-1", "zone-b/proxy-2");
        assertThat(provider.create(request("proxy-1", anyZone), deadline())).as("the name, where it is")
                .isEqualTo(first);
        assertThat(provider.place(List.of(anyZone, anyZone, new Placement("zone-b", "small", "debian-12")),
                deadline())).extracting(ZoneChoice::zone).containsExactly("zone-a", "zone-b", "zone-b");
    }

    @Test
    void validateRejectsWhatCreateRejectsWithTheSameError() {
        FakeProvider provider = twoZones();
        List<CreateRequest> rejected = List.of(
                request("proxy-1", new Placement("zone-z", "small", "debian-12")),
                request("proxy-1", new Placement("zone-a", "huge", "debian-12")),
                request("proxy-1", new Placement("zone-a", "small", "plan9")),
                request("Proxy_1", IN_A),
                new CreateRequest("proxy-1", "", IN_A, ""));

        for (CreateRequest request : rejected) {
            ProviderException fromValidate = providerError(() -> provider.validate(request), ErrorKind.PERMANENT,
                    Operation.CREATE, request.name());
            ProviderException fromCreate = providerError(() -> provider.create(request, deadline()),
                    ErrorKind.PERMANENT, Operation.CREATE, request.name());
            assertThat(fromValidate.detail()).as("validate's detail for %s", request).isEqualTo(fromCreate.detail());
        }
        assertThat(provider.listManaged(deadline())).isEmpty();
    }

    @Test
    void validateAcceptsAValidRequestWithoutTouchingAnything() {
        FakeProvider provider = twoZones();
        provider.faults().failAlways(Operation.CREATE, ErrorKind.TRANSIENT);
        provider.faults().makeZoneUnreadable("zone-a");

        assertThatCode(() -> provider.validate(request("proxy-1", IN_B))).doesNotThrowAnyException();
    }

    @Test
    void deleteAndGetOfAnIdInAZoneTheEntryLacksArePermanent() {
        FakeProvider provider = twoZones();

        ProviderException deleted = providerError(() -> provider.delete("zone-q/demo", deadline()),
                ErrorKind.PERMANENT, Operation.DELETE, "zone-q/demo");
        providerError(() -> provider.get("zone-q/demo", deadline()), ErrorKind.PERMANENT, Operation.GET, "zone-q/demo");

        assertThat(deleted.detail()).contains("zone 'zone-q' is not a zone of provider entry", "[zone-a, zone-b]");
    }

    @Test
    void instanceLeftInAZoneRemovedFromTheConfigurationCanStillBeDeleted() {
        Path stateFile = directory.resolve("state.json");
        String id = twoZones(TestProviders.ENTRY, stateFile).create(request("proxy-1", IN_B), deadline());
        FakeProvider zoneAOnly = TestProviders.build(FakeConfig.defaults().withStateFile(stateFile), clock, directory);

        assertThat(zoneAOnly.listManaged(deadline())).extracting(Instance::id).containsExactly(id);
        zoneAOnly.delete(id, deadline());

        assertThat(zoneAOnly.listManaged(deadline())).isEmpty();
    }
}

package dev.egressproxies.kvm.common.instance;

import static dev.egressproxies.kvm.common.instance.EngineFixture.POOL;
import static dev.egressproxies.kvm.common.testing.Requests.catchProviderException;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.api.ZoneChoice;
import dev.egressproxies.kvm.common.testing.FakeLibvirtHost;
import dev.egressproxies.kvm.common.testing.Requests;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Creates without zone on an entry with two hosts: spread by this entry's instances, kept off a host
 * without room or cordoned, and a name that exists stays where it is.
 */
class HostPlacementTest {
    private static final Placement ANY_ZONE = new Placement("", "small", EngineFixture.IMAGE);
    private static final long GIB = 1L << 30;

    private final EngineFixture fixture = EngineFixture.hosts(2);
    private final FakeLibvirtHost first = fixture.hosts.get(0);
    private final FakeLibvirtHost second = fixture.hosts.get(1);

    @BeforeEach
    void cacheTheBaseOnBothHosts() {
        // Concurrent creates each fetch an uncached base: the preset strategy of these tests has no lease.
        first.putVolume(POOL, EngineFixture.BASE_VOLUME, EngineFixture.IMAGE_BYTES);
        second.putVolume(POOL, EngineFixture.BASE_VOLUME, EngineFixture.IMAGE_BYTES);
    }

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void createsWithoutZoneSpreadOverTheHosts() {
        List<String> ids = new ArrayList<>();
        for (int number = 1; number <= 4; number++) {
            ids.add(fixture.engine.create(Requests.request("proxy-" + number, ANY_ZONE), Requests.deadline()));
        }

        assertThat(ids).filteredOn(id -> id.startsWith("host-1/")).hasSize(2);
        assertThat(ids).filteredOn(id -> id.startsWith("host-2/")).hasSize(2);
    }

    @Test
    void concurrentCreatesOfThisProcessSpreadToo() {
        List<CompletableFuture<String>> creates = new ArrayList<>();
        for (int number = 1; number <= 4; number++) {
            String name = "proxy-" + number;
            creates.add(CompletableFuture.supplyAsync(() -> fixture.engine.create(Requests.request(name, ANY_ZONE),
                    Requests.deadline())));
        }
        List<String> ids = creates.stream().map(CompletableFuture::join).toList();

        assertThat(ids).filteredOn(id -> id.startsWith("host-1/")).hasSize(2);
        assertThat(ids).filteredOn(id -> id.startsWith("host-2/")).hasSize(2);
    }

    @Test
    void placeChoosesTogetherAndKeepsNamedZones() {
        List<ZoneChoice> choices = fixture.engine.place(List.of(ANY_ZONE, ANY_ZONE,
                new Placement("host-2", "small", EngineFixture.IMAGE), ANY_ZONE), Requests.deadline());

        assertThat(choices).extracting(ZoneChoice::zone).containsExactly("host-1", "host-2", "host-2", "host-1");
        assertThat(choices.get(2).reason()).isEqualTo("named");
        assertThat(choices.get(0).reason()).contains("fewest instances of entry 'kvm-test' (0; host-2 has 0)",
                "memory", "pool space free");
        assertThat(first.domainNames()).as("place changes nothing").isEmpty();
        assertThat(first.volumeNames(POOL)).containsExactly(EngineFixture.BASE_VOLUME);
    }

    @Test
    void aHostWithoutMemoryForTheMachineTypeIsSkipped() {
        first.withMemory(256L << 20);

        List<ZoneChoice> choices = fixture.engine.place(List.of(ANY_ZONE, ANY_ZONE), Requests.deadline());

        assertThat(choices).extracting(ZoneChoice::zone).containsExactly("host-2", "host-2");
        assertThat(choices.get(0).reason()).contains("skipped host-1 lacks memory (0.3 GiB free, 0.5 GiB needed)");
    }

    @Test
    void aHostWhosePoolCannotHoldTheDiskIsSkipped() {
        second.withPoolCapacity(POOL, 5 * GIB);

        String id = fixture.engine.create(Requests.request("proxy-1", ANY_ZONE), Requests.deadline());
        List<ZoneChoice> next = fixture.engine.place(List.of(ANY_ZONE), Requests.deadline());

        assertThat(id).isEqualTo("host-1/proxy-1");
        assertThat(next.get(0).zone()).as("host-1 has an instance more, yet host-2 has no room").isEqualTo("host-1");
        assertThat(next.get(0).reason()).contains("host-2 lacks pool space (5.0 GiB free, 10.0 GiB needed)");
    }

    @Test
    void withoutRoomAnywhereCreateIsQuotaExceededAndMakesNothing() {
        first.withMemory(128L << 20);
        second.withMemory(128L << 20);

        ProviderException error = catchProviderException(() -> fixture.engine.create(
                Requests.request("proxy-1", ANY_ZONE), Requests.deadline()));

        assertThat(error.kind()).isEqualTo(ErrorKind.QUOTA_EXCEEDED);
        assertThat(error.detail()).contains("no host of provider entry 'kvm-test' can take a 'small' instance",
                "host-1 lacks memory", "host-2 lacks memory");
        assertThat(first.domainNames()).isEmpty();
        assertThat(second.domainNames()).isEmpty();
    }

    @Test
    void aHostThatDoesNotAnswerIsSkipped() {
        fixture.connections.breakHost("host-2", ErrorKind.TRANSIENT);

        List<ZoneChoice> choices = fixture.engine.place(List.of(ANY_ZONE), Requests.deadline());

        assertThat(choices.get(0).zone()).isEqualTo("host-1");
        assertThat(choices.get(0).reason()).contains("skipped host-2 does not answer");
    }

    @Test
    void aCordonedHostTakesNoNewInstanceUntilUncordoned() {
        fixture.engine.cordon("host-1", true, Requests.deadline());

        List<String> ids = List.of(
                fixture.engine.create(Requests.request("proxy-1", ANY_ZONE), Requests.deadline()),
                fixture.engine.create(Requests.request("proxy-2", ANY_ZONE), Requests.deadline()));
        ProviderException pinned = catchProviderException(() -> fixture.engine.create(
                Requests.request("proxy-3", new Placement("host-1", "small", EngineFixture.IMAGE)), Requests.deadline()));

        assertThat(fixture.engine.cordonedZones(Requests.deadline())).containsExactly("host-1");
        assertThat(ids).allMatch(id -> id.startsWith("host-2/"));
        assertThat(pinned.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(pinned.detail()).contains("host 'host-1' of provider entry 'kvm-test' is cordoned",
                "egressctl uncordon kvm-test/host-1");
        assertThat(first.domainNames()).isEmpty();

        fixture.engine.cordon("host-1", false, Requests.deadline());

        assertThat(fixture.engine.cordonedZones(Requests.deadline())).isEmpty();
        assertThat(fixture.engine.create(Requests.request("proxy-3", ANY_ZONE), Requests.deadline()))
                .isEqualTo("host-1/proxy-3");
    }

    @Test
    void anExistingInstanceOnACordonedHostIsStillStarted() {
        String id = fixture.engine.create(Requests.request("proxy-1", new Placement("host-1", "small",
                EngineFixture.IMAGE)), Requests.deadline());
        fixture.engine.cordon("host-1", true, Requests.deadline());

        assertThat(fixture.engine.create(Requests.request("proxy-1", new Placement("host-1", "small",
                EngineFixture.IMAGE)), Requests.deadline())).isEqualTo(id);
    }

    @Test
    void aCreateWithoutZoneOfAnExistingNameReturnsItWhereverItIs() {
        String id = fixture.engine.create(Requests.request("proxy-1", new Placement("host-2", "small",
                EngineFixture.IMAGE)), Requests.deadline());

        assertThat(fixture.engine.create(Requests.request("proxy-1", ANY_ZONE), Requests.deadline())).isEqualTo(id);
        assertThat(first.domainNames()).isEmpty();
    }
}

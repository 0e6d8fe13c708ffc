package dev.egressproxies.kvm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.kvm.common.libvirt.LibvirtHost.AddressSource;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.DomainState;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.InterfaceAddress;
import dev.egressproxies.kvm.common.testing.FakeLibvirtHost;
import dev.egressproxies.kvm.common.testing.PlatformMetadata;
import dev.egressproxies.kvm.common.testing.Requests;
import java.util.List;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How many libvirt calls (and host calls, the round trips to the connection pool) each operation
 * makes, printed for the benchmark note and pinned so a change that adds calls is noticed.
 */
class LibvirtCallCountTest {
    private static final int LISTED_DOMAINS = 500;

    private final KvmFixture fixture = KvmFixture.oneHost();
    private final FakeLibvirtHost host = fixture.host();

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void callsPerOperation() {
        // 10 of them and 1 host call for the fetch lease: taking it, the second look at the base under it,
        // the check before the marker and the release. Each create, cached or not, then looks up the
        // base's fetch lease and the base once its overlay exists (a prune may have deleted the base).
        measure("create, image not cached yet (downloads it)", () -> fixture.create("proxy-0"), 30, 5);
        // 11 of them and one look for a stale fetch lease of the complete base.
        measure("create, image cached", () -> fixture.create("proxy-1"), 14, 2);
        measure("create, domain exists and runs", () -> fixture.create("proxy-1"), 3, 1);
        host.domain("proxy-1").state = DomainState.SHUTOFF;
        measure("create, domain exists and is stopped", () -> fixture.create("proxy-1"), 4, 1);
        host.domain("proxy-1").addresses.put(AddressSource.ARP, List.of(new InterfaceAddress("vnet0", "10.0.0.5", true)));
        measure("get, running with an ARP address", () -> fixture.provider.get("host-1/proxy-1", Requests.deadline()),
                4, 1);
        host.domain("proxy-1").addresses.clear();
        measure("get, running without an address yet", () -> fixture.provider.get("host-1/proxy-1",
                Requests.deadline()), 5, 1);
        host.domain("proxy-1").state = DomainState.SHUTOFF;
        measure("get, stopped", () -> fixture.provider.get("host-1/proxy-1", Requests.deadline()), 3, 1);
        measure("delete, stopped domain with overlay and seed", () -> fixture.provider.delete("host-1/proxy-1",
                Requests.deadline()), 10, 1); // one listing of the pool for fetch leases left

        fixture.provider.delete("host-1/proxy-0", Requests.deadline());
        for (int index = 0; index < LISTED_DOMAINS; index++) {
            String name = String.format("bench-%04d", index);
            host.putDomain(name, DomainState.SHUTOFF, PlatformMetadata.of(KvmFixture.ENTRY, name));
        }
        host.putDomain("not-ours", DomainState.RUNNING, null);
        measure("listManaged, " + LISTED_DOMAINS + " stopped managed domains and 1 unmanaged", () ->
                assertThat(fixture.provider.listManaged(Requests.deadline())).hasSize(LISTED_DOMAINS),
                // Two listings (active, inactive) and one metadata read each: stopped domains need no state read.
                2 + LISTED_DOMAINS + 1, 1);
    }

    @Test
    void createAsksEachOtherHostOfTheEntryOnceWhetherItHoldsTheName() {
        try (KvmFixture twoHosts = KvmFixture.hosts(2)) {
            twoHosts.cacheBaseImage();
            FakeLibvirtHost other = twoHosts.hosts.get(1);
            other.resetCalls();

            // Three host calls more than with one host (asking the other, and on the claims host,
            // which is the other one here: taking the name's claim, the cordon, the release).
            measure(twoHosts, "create on one of two hosts, image cached", () -> twoHosts.create("proxy-1"), 14, 6);

            Map<String, Integer> claimCalls = Map.of("lookupPool", 3, "createVolume", 1, "uploadVolume", 1,
                    "lookupVolume", 2, "downloadVolume", 1, "deleteVolume", 1);
            Map<String, Integer> expected = new HashMap<>(claimCalls);
            // The name: its domain, and with none there, the overlay and seed a cut-off create may have left.
            expected.put("lookupDomain", 1);
            expected.merge("lookupPool", 1, Integer::sum);
            expected.merge("lookupVolume", 2, Integer::sum);
            System.out.printf("libvirt calls: the other host, also the claims host: %s%n", other.callCounts());
            assertThat(other.callCounts()).as("calls to the other host: the name, then the claim").isEqualTo(expected);
            other.resetCalls();
            measure(twoHosts, "create on one of two hosts, domain exists and runs", () -> twoHosts.create("proxy-1"),
                    3, 4);
            assertThat(other.totalCalls()).as("calls to the other host: the name, then the claim (no cordon check for"
                    + " an instance that exists)").isEqualTo(4 + 7);
        }
    }

    private void measure(String operation, Runnable call, int expectedLibvirtCalls, int expectedHostCalls) {
        measure(fixture, operation, call, expectedLibvirtCalls, expectedHostCalls);
    }

    /** Counts the calls to {@code fixture}'s first host, and the host calls to all of its hosts. */
    private static void measure(KvmFixture fixture, String operation, Runnable call, int expectedLibvirtCalls,
                                int expectedHostCalls) {
        FakeLibvirtHost host = fixture.host();
        host.resetCalls();
        int hostCallsBefore = fixture.connections.callCount();
        long started = System.nanoTime();
        call.run();
        long micros = (System.nanoTime() - started) / 1000;
        Map<String, Integer> counts = host.callCounts();
        int hostCalls = fixture.connections.callCount() - hostCallsBefore;
        System.out.printf("libvirt calls: %-70s %4d libvirt, %d host calls, %6d us on the fake: %s%n", operation,
                host.totalCalls(), hostCalls, micros, counts);
        assertThat(host.totalCalls()).as("libvirt calls of %s: %s", operation, counts).isEqualTo(expectedLibvirtCalls);
        assertThat(hostCalls).as("host calls of %s", operation).isEqualTo(expectedHostCalls);
    }
}

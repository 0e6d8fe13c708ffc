package dev.egressproxies.fake;

import static dev.egressproxies.fake.TestProviders.deadline;
import static dev.egressproxies.fake.TestProviders.request;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class AddressTest {
    private final FakeProvider provider = TestProviders.inMemory();

    @Test
    void addressesAreHandedOutInOrderFromTheDocumentationNetwork() {
        String first = provider.create(request("proxy-1"), deadline());
        String second = provider.create(request("proxy-2"), deadline());

        assertThat(provider.get(first, deadline()).ip()).isEqualTo("198.51.100.1");
        assertThat(provider.get(second, deadline()).ip()).isEqualTo("198.51.100.2");
    }

    @Test
    void aDeletedInstancesAddressIsReused() {
        provider.create(request("proxy-1"), deadline());
        String middle = provider.create(request("proxy-2"), deadline());
        provider.create(request("proxy-3"), deadline());

        provider.delete(middle, deadline());
        String replacement = provider.create(request("proxy-4"), deadline());

        assertThat(provider.get(replacement, deadline()).ip()).isEqualTo("198.51.100.2");
    }

    @Test
    void the255thInstanceGetsTheFirstBenchmarkingAddress() {
        for (int index = 1; index <= 254; index++) {
            provider.create(request("proxy-" + index), deadline());
        }

        String beyond = provider.create(request("proxy-255"), deadline());

        assertThat(provider.get(beyond, deadline()).ip()).isEqualTo("198.18.0.1");
        assertThat(provider.listManaged(deadline())).hasSize(255);
    }

    @Test
    void unmanagedInstancesHoldAddressesToo() {
        String unmanaged = provider.addUnmanaged("zone-a", "by-hand");
        String managed = provider.create(request("proxy-1"), deadline());

        assertThat(provider.get(unmanaged, deadline()).ip()).isEqualTo("198.51.100.1");
        assertThat(provider.get(managed, deadline()).ip()).isEqualTo("198.51.100.2");
    }

    @Test
    void thePoolSpansBothReservedNetworksWithoutNetworkOrBroadcastAddresses() {
        assertThat(AddressPool.address(253)).isEqualTo("198.51.100.254");
        assertThat(AddressPool.address(254)).isEqualTo("198.18.0.1");
        assertThat(AddressPool.address(254 + 255)).isEqualTo("198.18.1.0");
        assertThat(AddressPool.address(AddressPool.SIZE - 1)).isEqualTo("198.19.255.254");
        assertThat(IntStream.range(0, AddressPool.SIZE).mapToObj(AddressPool::address).collect(Collectors.toSet()))
                .as("distinct addresses").hasSize(AddressPool.SIZE);
    }

    @Test
    void aFullPoolHasNoFreeAddressUntilOneIsReleased() {
        Set<String> taken = IntStream.range(0, AddressPool.SIZE).mapToObj(AddressPool::address)
                .collect(Collectors.toCollection(HashSet::new));

        assertThat(AddressPool.lowestFree(taken)).isEmpty();
        taken.remove("198.18.7.7");
        assertThat(AddressPool.lowestFree(taken)).contains("198.18.7.7");
    }
}

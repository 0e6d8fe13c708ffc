package dev.egressproxies.fake;

import static dev.egressproxies.fake.TestProviders.deadline;
import static dev.egressproxies.fake.TestProviders.providerError;
import static dev.egressproxies.fake.TestProviders.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import java.util.stream.Collectors;
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
    void whenEveryAddressIsTakenCreateIsQuotaExceededAndCreatesNothing() {
        fillAddressPool();

        ProviderException error = providerError(() -> provider.create(request("one-too-many"), deadline()),
                ErrorKind.QUOTA_EXCEEDED, Operation.CREATE, "zone-a/one-too-many");

        assertThat(error.detail()).contains("198.51.100.0/24", "delete instances");
        assertThat(provider.listManaged(deadline())).hasSize(AddressPool.SIZE);
        assertThat(provider.listManaged(deadline()).stream().map(Instance::ip).collect(Collectors.toSet()))
                .hasSize(AddressPool.SIZE);
    }

    @Test
    void afterADeleteAFullPoolHasRoomAgain() {
        fillAddressPool();
        provider.delete("zone-a/proxy-100", deadline());

        String id = provider.create(request("one-more"), deadline());

        assertThat(provider.get(id, deadline()).ip()).isEqualTo("198.51.100.100");
    }

    @Test
    void unmanagedInstancesHoldAddressesToo() {
        String unmanaged = provider.addUnmanaged("zone-a", "by-hand");
        String managed = provider.create(request("proxy-1"), deadline());

        assertThat(provider.get(unmanaged, deadline()).ip()).isEqualTo("198.51.100.1");
        assertThat(provider.get(managed, deadline()).ip()).isEqualTo("198.51.100.2");
    }

    @Test
    void addUnmanagedIntoAFullPoolIsRejected() {
        fillAddressPool();

        assertThatThrownBy(() -> provider.addUnmanaged("zone-a", "by-hand"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("every address");
    }

    private void fillAddressPool() {
        for (int index = 1; index <= AddressPool.SIZE; index++) {
            provider.create(request("proxy-" + index), deadline());
        }
    }
}

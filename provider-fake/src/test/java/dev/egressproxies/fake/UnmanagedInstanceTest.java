package dev.egressproxies.fake;

import static dev.egressproxies.fake.TestProviders.deadline;
import static dev.egressproxies.fake.TestProviders.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.InstanceState;
import dev.egressproxies.api.ProviderException;
import org.junit.jupiter.api.Test;

class UnmanagedInstanceTest {
    private final FakeProvider provider = TestProviders.inMemory();

    @Test
    void listManagedListsWhatWasCreatedAndLeavesOutUnmanagedInstances() {
        String second = provider.create(request("proxy-2"), deadline());
        provider.addUnmanaged("zone-a", "by-hand");
        String first = provider.create(request("proxy-1"), deadline());

        assertThat(provider.listManaged(deadline())).extracting(Instance::id).containsExactly(first, second);
    }

    @Test
    void listManagedReportsUidAndCreationTime() {
        provider.create(request("proxy-1"), deadline());

        Instance listed = provider.listManaged(deadline()).get(0);

        assertThat(listed.uid()).isEqualTo("uid-proxy-1");
        assertThat(listed.createdAt()).isEqualTo(TestProviders.START);
        assertThat(listed.state()).isEqualTo(InstanceState.RUNNING);
    }

    @Test
    void getReportsAnUnmanagedInstanceWithoutUidOrCreationTime() {
        String id = provider.addUnmanaged("zone-a", "by-hand");

        Instance instance = provider.get(id, deadline());

        assertThat(id).isEqualTo("zone-a/by-hand");
        assertThat(instance.uid()).isEmpty();
        assertThat(instance.createdAt()).isNull();
        assertThat(instance.state()).isEqualTo(InstanceState.RUNNING);
    }

    @Test
    void deleteRefusesAnUnmanagedInstanceAndKeepsIt() {
        String id = provider.addUnmanaged("zone-a", "by-hand");

        assertThatThrownBy(() -> provider.delete(id, deadline()))
                .isInstanceOfSatisfying(ProviderException.class, error -> {
                    assertThat(error.kind())
                            .isEqualTo(ErrorKind.PERMANENT);
                    assertThat(error.detail()).contains("not created by egress-proxies");
                });

        assertThat(provider.get(id, deadline()).name()).isEqualTo("by-hand");
    }

    @Test
    void addUnmanagedRejectsAnUnconfiguredZone() {
        assertThatThrownBy(() -> provider.addUnmanaged("zone-z", "by-hand"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("zone 'zone-z' is not configured")
                .hasMessageContaining("[zone-a]");
    }

    @Test
    void addUnmanagedRejectsANameThatIsNoDnsLabel() {
        assertThatThrownBy(() -> provider.addUnmanaged("zone-a", "By Hand"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a DNS label");
    }

    @Test
    void addUnmanagedRejectsATakenName() {
        provider.create(request("proxy-1"), deadline());

        assertThatThrownBy(() -> provider.addUnmanaged("zone-a", "proxy-1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("already exists");
    }
}

package dev.egressproxies.fake;

import static dev.egressproxies.fake.TestProviders.START;
import static dev.egressproxies.fake.TestProviders.deadline;
import static dev.egressproxies.fake.TestProviders.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.InstanceState;
import dev.egressproxies.api.Placement;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class LifecycleTest {
    private static final Duration BOOT_DELAY = Duration.ofSeconds(5);

    private final ManualClock clock = new ManualClock(START);
    private final FakeProvider provider = TestProviders.build(FakeConfig.defaults().withBootDelay(BOOT_DELAY),
            clock, Path.of("unused"));

    @Test
    void createReturnsZoneSlashName() {
        assertThat(provider.create(request("proxy-1"), deadline())).isEqualTo("zone-a/proxy-1");
    }

    @Test
    void emptyZoneGoesToTheOnlyConfiguredZone() {
        String id = provider.create(request("proxy-1", new Placement("", "small", "debian-12")), deadline());

        assertThat(id).isEqualTo("zone-a/proxy-1");
    }

    @Test
    void withoutBootDelayAnInstanceRunsAtOnceWithAnAddress() {
        FakeProvider immediate = TestProviders.inMemory();
        String id = immediate.create(request("proxy-1"), deadline());

        Instance instance = immediate.get(id, deadline());

        assertThat(instance.state()).isEqualTo(InstanceState.RUNNING);
        assertThat(instance.ip()).isEqualTo("198.51.100.1");
    }

    @Test
    void instanceProvisionsWithoutAddressUntilTheBootDelayHasPassed() {
        String id = provider.create(request("proxy-1"), deadline());

        assertThat(provider.get(id, deadline()).state()).isEqualTo(InstanceState.PROVISIONING);
        assertThat(provider.get(id, deadline()).ip()).isEmpty();

        clock.advance(BOOT_DELAY.minusMillis(1));
        assertThat(provider.get(id, deadline()).state()).isEqualTo(InstanceState.PROVISIONING);

        clock.advance(Duration.ofMillis(1));
        Instance booted = provider.get(id, deadline());
        assertThat(booted.state()).isEqualTo(InstanceState.RUNNING);
        assertThat(booted.ip()).startsWith("198.51.100.");
    }

    @Test
    void getReportsWhatCreateWasGiven() {
        CreateRequest request = new CreateRequest("proxy-1", "owner-42", new Placement("zone-a", "small", "debian-12"), "");
        String id = provider.create(request, deadline());

        Instance instance = provider.get(id, deadline());

        assertThat(instance.id()).isEqualTo(id);
        assertThat(instance.name()).isEqualTo("proxy-1");
        assertThat(instance.uid()).isEqualTo("owner-42");
        assertThat(instance.createdAt()).isEqualTo(START);
    }

    @Test
    void stoppedInstanceIsStoppedWithoutAddress() {
        String id = provider.create(request("proxy-1"), deadline());
        clock.advance(BOOT_DELAY);

        provider.stop(id);

        Instance stopped = provider.get(id, deadline());
        assertThat(stopped.state()).isEqualTo(InstanceState.STOPPED);
        assertThat(stopped.ip()).isEmpty();
    }

    @Test
    void createStartsAStoppedInstanceWhichBootsAgainAndKeepsItsIdentity() {
        String id = provider.create(request("proxy-1"), deadline());
        clock.advance(BOOT_DELAY);
        String address = provider.get(id, deadline()).ip();
        provider.stop(id);
        clock.advance(Duration.ofMinutes(1));

        assertThat(provider.create(request("proxy-1"), deadline())).isEqualTo(id);

        Instance restarted = provider.get(id, deadline());
        assertThat(restarted.state()).isEqualTo(InstanceState.PROVISIONING);
        assertThat(restarted.createdAt()).isEqualTo(START);
        assertThat(restarted.uid()).isEqualTo("uid-proxy-1");
        clock.advance(BOOT_DELAY);
        assertThat(provider.get(id, deadline()).ip()).isEqualTo(address);
        assertThat(provider.listManaged(deadline())).hasSize(1);
    }

    @Test
    void createOfARunningInstanceChangesNothing() {
        String id = provider.create(request("proxy-1"), deadline());
        clock.advance(BOOT_DELAY);
        Instance before = provider.get(id, deadline());

        provider.create(request("proxy-1"), deadline());

        assertThat(provider.get(id, deadline())).isEqualTo(before);
    }

    @Test
    void stoppingAnUnknownInstanceSaysWhichIdsWork() {
        assertThatThrownBy(() -> provider.stop("zone-a/missing"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("zone-a/missing")
                .hasMessageContaining("create or addUnmanaged");
    }
}

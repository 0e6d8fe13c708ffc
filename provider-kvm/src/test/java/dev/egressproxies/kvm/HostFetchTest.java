package dev.egressproxies.kvm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.testing.FakeHostFleet;
import dev.egressproxies.kvm.common.testing.FakeLibvirtHost;
import dev.egressproxies.kvm.common.testing.Requests;
import dev.egressproxies.kvm.common.testing.TestProviderContext;
import dev.egressproxies.kvm.config.KvmConfig;
import dev.egressproxies.kvm.config.KvmHost;
import dev.egressproxies.kvm.config.KvmImage;
import dev.egressproxies.kvm.config.MachineType;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A {@code kvm} entry whose image the hosts fetch themselves ({@code fetch: host}): refused, with
 * nothing left in the pool, where the host cannot do it (a pool of another type, a link that is no
 * SSH session); the download itself runs in kvm-common's and the real stack's tests.
 */
class HostFetchTest {
    private static final String POOL = "egress-test";

    private final FakeHostFleet fleet = new FakeHostFleet(1, POOL);
    private final FakeLibvirtHost host = fleet.hosts().get(0);
    private final KvmProvider provider = new KvmProvider("kvm-test", new KvmConfig(
            List.of(new KvmHost(FakeHostFleet.name(1), "127.0.0.1", 2222, "root", null, POOL, "br-test", "qemu", null,
                    null, null, null, null)),
            Map.of("small", new MachineType(1, 512)),
            Map.of("far", new KvmImage("http://127.0.0.1:9/far.qcow2", null, "host")), 10, null,
            Path.of("/nonexistent/id_ed25519"), Path.of("/nonexistent/known_hosts"), null, null, null, null, null, null,
            null, null, null), new TestProviderContext(), fleet.dialer());

    @AfterEach
    void close() {
        provider.close();
    }

    private ProviderException createFails() {
        return catchThrowableOfType(ProviderException.class, () -> provider.create(Requests.request("vm",
                new Placement(FakeHostFleet.name(1), "small", "far")), Requests.deadline()));
    }

    @Test
    void aPoolOfAnotherTypeIsRefusedBeforeAnythingIsWritten() {
        host.withPoolType(POOL, "logical");

        ProviderException refused = createFails();

        assertThat(refused.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(refused.detail()).contains("is a logical pool", "set fetch: client");
        assertThat(host.volumeNames(POOL)).isEmpty();
    }

    @Test
    void aHostReachedWithoutSshIsRefusedAndTheNewBaseRemoved() {
        ProviderException refused = createFails();

        assertThat(refused.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(refused.detail()).contains("not over SSH", "set fetch: client");
        assertThat(host.volumeNames(POOL)).as("base and lease removed").isEmpty();
    }
}

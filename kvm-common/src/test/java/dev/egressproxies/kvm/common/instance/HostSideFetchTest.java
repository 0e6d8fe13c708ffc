package dev.egressproxies.kvm.common.instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.testing.FakeLibvirtHost;
import dev.egressproxies.kvm.common.testing.Requests;
import org.junit.jupiter.api.Test;

/** Where a host-side fetch may write: a dir pool's folder; any other pool type is refused, naming it. */
class HostSideFetchTest {
    private final HostSettings host = HostSettings.of("kvm-1", "10.0.0.5", "br0");
    private final Call call = new Call("lab", Operation.CREATE, "kvm-1/vm", Requests.deadline());

    @Test
    void aDirPoolGivesItsFolder() {
        FakeLibvirtHost libvirt = new FakeLibvirtHost("kvm-1").withPool(host.pool());

        assertThat(HostSideFetch.requireDirPool(libvirt, libvirt.lookupPool(host.pool()).orElseThrow(), host, call))
                .isEqualTo("/var/lib/libvirt/" + host.pool());
    }

    @Test
    void anotherPoolTypeIsPermanentNamingItAndTheWaysOn() {
        FakeLibvirtHost libvirt = new FakeLibvirtHost("kvm-1").withPool(host.pool())
                .withPoolType(host.pool(), "logical");

        ProviderException refused = catchThrowableOfType(ProviderException.class, () -> HostSideFetch.requireDirPool(
                libvirt, libvirt.lookupPool(host.pool()).orElseThrow(), host, call));

        assertThat(refused.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(refused.detail()).isEqualTo("storage pool '" + host.pool() + "' on host 'kvm-1' is a logical pool;"
                + " fetch: host writes images into a dir pool's folder only: set fetch: client for this entry or"
                + " image, or use a dir pool on that host");
    }
}

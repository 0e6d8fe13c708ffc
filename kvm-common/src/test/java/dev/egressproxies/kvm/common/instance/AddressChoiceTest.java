package dev.egressproxies.kvm.common.instance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.kvm.common.libvirt.LibvirtHost.InterfaceAddress;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Which interface addresses count as the instance's address. */
class AddressChoiceTest {

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "127.255.0.9", "169.254.0.1", "169.254.255.254", "0.0.0.0", "256.1.1.1",
            "10.0.0", "10.0.0.1/24", "localhost", "example.org", ""})
    void unroutableOrInvalidAddressesAreSkipped(String address) {
        assertThat(InstanceInspector.firstRoutableIpv4(List.of(new InterfaceAddress("vnet0", address, true)))).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"10.0.0.1", "192.168.122.5", "203.0.113.250", "172.16.0.1"})
    void routableAddressesAreChosen(String address) {
        assertThat(InstanceInspector.firstRoutableIpv4(List.of(new InterfaceAddress("vnet0", address, true))))
                .contains(address);
    }

    @Test
    void theFirstRoutableOneWinsAndIpv6IsIgnored() {
        assertThat(InstanceInspector.firstRoutableIpv4(List.of(
                new InterfaceAddress("vnet0", "fe80::1", false),
                new InterfaceAddress("vnet0", "2001:db8::5", false),
                new InterfaceAddress("lo", "127.0.0.1", true),
                new InterfaceAddress("vnet0", "10.0.0.9", true),
                new InterfaceAddress("vnet1", "10.0.0.10", true)))).contains("10.0.0.9");
    }
}

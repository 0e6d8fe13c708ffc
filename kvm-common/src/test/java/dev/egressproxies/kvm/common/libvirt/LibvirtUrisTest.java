package dev.egressproxies.kvm.common.libvirt;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class LibvirtUrisTest {

    @Test
    void namesTheSystemDriverThroughTheSocket() {
        assertThat(LibvirtUris.systemThroughSocket(Path.of("/tmp/egress-libvirt-1/libvirt.sock")))
                .isEqualTo("qemu+unix:///system?socket=/tmp/egress-libvirt-1/libvirt.sock");
    }

    @Test
    void percentEncodesEverythingLibvirtsUriParserCouldMisread() {
        assertThat(LibvirtUris.systemThroughSocket(Path.of("/tmp/a b&c=d?e#f%g+h/ž.sock")))
                .isEqualTo("qemu+unix:///system?socket=/tmp/a%20b%26c%3Dd%3Fe%23f%25g%2Bh/%C5%BE.sock");
    }

    @Test
    void formatsLibvirtVersionNumbers() {
        assertThat(LibvirtJavaHost.versionText(9_000_000)).isEqualTo("9.0.0");
        assertThat(LibvirtJavaHost.versionText(10_010_003)).isEqualTo("10.10.3");
    }
}

package dev.egressproxies.kvm.common.xml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.egressproxies.kvm.common.testing.ParsedXml;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

class VolumeXmlTest {

    @Test
    void rawVolumeHasExactlyTheGivenBytesAndNoPreallocation() {
        ParsedXml xml = ParsedXml.of(VolumeXml.raw("seed-1.iso", 374_784));

        assertThat(xml.text("/volume/name")).isEqualTo("seed-1.iso");
        assertThat(xml.text("/volume/capacity")).isEqualTo("374784");
        assertThat(xml.text("/volume/capacity/@unit")).isEqualTo("bytes");
        assertThat(xml.text("/volume/allocation")).isEqualTo("0");
        assertThat(xml.text("/volume/target/format/@type")).isEqualTo("raw");
        assertThat(xml.count("/volume/backingStore")).isZero();
    }

    @Test
    void imageVolumeHasItsFormat() {
        ParsedXml xml = ParsedXml.of(VolumeXml.image("base.qcow2", DiskFormat.QCOW2, 65_536));

        assertThat(xml.text("/volume/capacity")).isEqualTo("65536");
        assertThat(xml.text("/volume/target/format/@type")).isEqualTo("qcow2");
    }

    @Test
    void overlayIsQcow2InGibibytesOnItsBase() {
        ParsedXml xml = ParsedXml.of(VolumeXml.overlay("vm-1.qcow2", 10, "/pool/base.raw", DiskFormat.RAW));

        assertThat(xml.text("/volume/capacity")).isEqualTo("10");
        assertThat(xml.text("/volume/capacity/@unit")).isEqualTo("GiB");
        assertThat(xml.text("/volume/target/format/@type")).isEqualTo("qcow2");
        assertThat(xml.text("/volume/backingStore/path")).isEqualTo("/pool/base.raw");
        assertThat(xml.text("/volume/backingStore/format/@type")).isEqualTo("raw");
    }

    @ParameterizedTest
    @FieldSource("dev.egressproxies.kvm.common.xml.HostileText#VALUES")
    void hostileNamesAndPathsRoundTrip(String hostile) {
        ParsedXml overlay = ParsedXml.of(VolumeXml.overlay(hostile, 1, "/pool/" + hostile, DiskFormat.QCOW2));
        ParsedXml raw = ParsedXml.of(VolumeXml.raw(hostile, 1));

        assertThat(overlay.count("/volume/*")).isEqualTo(4);
        assertThat(overlay.text("/volume/name")).isEqualTo(hostile);
        assertThat(overlay.text("/volume/backingStore/path")).isEqualTo("/pool/" + hostile);
        assertThat(raw.text("/volume/name")).isEqualTo(hostile);
    }

    @Test
    void backingPathIsReadFromWhatLibvirtDescribes() {
        String libvirtOverlay = "<volume type='file'><name>e+vm-1.qcow2</name><key>/pool/e+vm-1.qcow2</key>"
                + "<capacity unit='bytes'>10737418240</capacity><target><path>/pool/e+vm-1.qcow2</path>"
                + "<format type='qcow2'/></target><backingStore><path>/pool/debian.0123456789abcdef.base.qcow2</path>"
                + "<format type='qcow2'/></backingStore></volume>";

        assertThat(VolumeXml.backingPath(libvirtOverlay)).contains("/pool/debian.0123456789abcdef.base.qcow2");
        assertThat(VolumeXml.backingPath(VolumeXml.overlay("vm-1.qcow2", 1, "/pool/b.raw", DiskFormat.RAW)))
                .contains("/pool/b.raw");
        assertThat(VolumeXml.backingPath(VolumeXml.raw("seed.iso", 1))).isEmpty();
        assertThat(VolumeXml.backingPath("<volume><backingStore/></volume>")).isEmpty();
    }

    @Test
    void refusesWhatCannotBeAVolume() {
        assertThatThrownBy(() -> VolumeXml.raw("v", 0)).hasMessageContaining("must be positive");
        assertThatThrownBy(() -> VolumeXml.overlay("v", -1, "/b", DiskFormat.QCOW2)).hasMessageContaining("GiB");
        assertThatThrownBy(() -> VolumeXml.overlay("v", 1, " ", DiskFormat.QCOW2)).hasMessageContaining("base image");
        assertThatThrownBy(() -> VolumeXml.raw("", 1)).hasMessageContaining("name is blank");
        assertThatThrownBy(() -> VolumeXml.raw("nul\u0000", 1)).hasMessageContaining("XML cannot carry");
    }
}

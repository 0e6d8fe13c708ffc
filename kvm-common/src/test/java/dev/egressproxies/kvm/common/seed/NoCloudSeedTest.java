package dev.egressproxies.kvm.common.seed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Checks which files a NoCloud seed holds and what goes in them. */
class NoCloudSeedTest {
    private static final Instant NOW = Instant.parse("2024-05-06T07:08:09Z");

    @Test
    void holdsMetaUserAndVendorDataUnderTheCidataLabel() {
        IsoVolume volume = NoCloudSeed.builder("proxy-1").userData("#cloud-config\n").build().toIsoVolume(NOW);
        assertThat(volume.label()).isEqualTo("cidata");
        assertThat(volume.recordedAt()).isEqualTo(NOW);
        assertThat(contents(volume)).containsOnlyKeys("meta-data", "user-data", "vendor-data");
        assertThat(contents(volume).get("user-data")).isEqualTo("#cloud-config\n");
    }

    @Test
    void writesInstanceIdAndLocalHostnameAsQuotedYaml() {
        NoCloudSeed seed = NoCloudSeed.builder("proxy-1").build();
        assertThat(seed.metaData()).isEqualTo("instance-id: \"proxy-1\"\nlocal-hostname: \"proxy-1\"\n");
        assertThat(contents(seed.toIsoVolume(NOW)).get("meta-data")).isEqualTo(seed.metaData());
    }

    @Test
    void quotesNamesThatWouldOtherwiseChangeTheDocument() {
        assertThat(NoCloudSeed.builder("a: b\n\"c\"").build().metaData())
                .isEqualTo("instance-id: \"a: b\\u000A\\\"c\\\"\"\nlocal-hostname: \"a: b\\u000A\\\"c\\\"\"\n")
                .hasLineCount(2);
    }

    @Test
    void refusesBlankOrInvalidInstanceNames() {
        assertThatThrownBy(() -> NoCloudSeed.builder(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("instance name is blank");
        assertThatThrownBy(() -> NoCloudSeed.builder("x\uDC00")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("surrogate");
    }

    @Test
    void keepsEmptyUserDataAsAnEmptyFile() {
        assertThat(contents(NoCloudSeed.builder("p").build().toIsoVolume(NOW)).get("user-data")).isEmpty();
    }

    @Test
    void keepsUserDataBytesExactly() {
        byte[] gzipMagic = {(byte) 0x1F, (byte) 0x8B, 0x08, 0x00, (byte) 0xFF};
        NoCloudSeed seed = NoCloudSeed.builder("p").userData(gzipMagic).build();
        IsoFile userData = file(seed.toIsoVolume(NOW), "user-data");
        assertThat(userData.content()).containsExactly(gzipMagic);
        assertThat(seed.userData()).containsExactly(gzipMagic);
    }

    @Test
    void installsAndStartsTheGuestAgentByDefault() {
        String vendorData = contents(NoCloudSeed.builder("p").build().toIsoVolume(NOW)).get("vendor-data");
        assertThat(vendorData).isEqualTo(NoCloudSeed.DEFAULT_VENDOR_DATA)
                .startsWith("#cloud-config\n")
                .contains("packages:\n  - qemu-guest-agent\n")
                .contains("systemctl, enable, --now, qemu-guest-agent");
    }

    @Test
    void letsTheCallerReplaceOrEmptyTheVendorData() {
        assertThat(contents(NoCloudSeed.builder("p").vendorData("#cloud-config\n{}\n").build().toIsoVolume(NOW))
                .get("vendor-data")).isEqualTo("#cloud-config\n{}\n");
        assertThat(contents(NoCloudSeed.builder("p").vendorData("").build().toIsoVolume(NOW))
                .get("vendor-data")).isEmpty();
    }

    @Test
    void addsNetworkConfigOnlyWhenGiven() {
        assertThat(NoCloudSeed.builder("p").build().networkConfig()).isEmpty();
        NoCloudSeed seed = NoCloudSeed.builder("p").networkConfig("version: 2\n").build();
        assertThat(seed.networkConfig()).contains("version: 2\n");
        assertThat(contents(seed.toIsoVolume(NOW))).containsEntry("network-config", "version: 2\n");
    }

    @Test
    void buildsTheSameImageFromAClockAsFromItsInstant() {
        NoCloudSeed seed = NoCloudSeed.builder("p").userData("#cloud-config\n").build();
        byte[] fromClock = seed.toIsoImage(Clock.fixed(NOW, ZoneOffset.ofHours(5)));
        assertThat(fromClock).isEqualTo(seed.toIsoImage(NOW))
                .isEqualTo(Iso9660Writer.toByteArray(seed.toIsoVolume(NOW)));
    }

    @Test
    void refusesUserDataOverTheVolumeLimitWithAClearMessage() {
        NoCloudSeed seed = NoCloudSeed.builder("p").userData(new byte[IsoVolume.MAXIMUM_CONTENT_BYTES]).build();
        assertThatThrownBy(() -> seed.toIsoVolume(NOW)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("over the limit of 33554432");
    }

    @Test
    void doesNotPrintUserDataInToString() {
        assertThat(NoCloudSeed.builder("p").userData("password: hunter2").build().toString())
                .doesNotContain("hunter2")
                .contains("user-data 17 bytes");
    }

    private static IsoFile file(IsoVolume volume, String name) {
        return volume.files().stream().filter(file -> file.name().equals(name)).findFirst().orElseThrow();
    }

    private static Map<String, String> contents(IsoVolume volume) {
        return volume.files().stream().collect(Collectors.toMap(IsoFile::name,
                file -> new String(file.content(), StandardCharsets.UTF_8)));
    }
}

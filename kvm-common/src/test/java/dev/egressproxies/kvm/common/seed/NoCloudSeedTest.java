package dev.egressproxies.kvm.common.seed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Checks which files a NoCloud seed holds and what goes in them. */
class NoCloudSeedTest {
    private static final Instant NOW = Instant.parse("2024-05-06T07:08:09Z");

    @Test
    void holdsMetaUserAndVendorDataUnderTheCidataLabel() {
        NoCloudSeed seed = NoCloudSeed.builder("proxy-1").userData("#cloud-config\n").build();
        assertThat(NoCloudSeed.VOLUME_LABEL).isEqualTo("cidata");
        assertThat(contents(seed)).containsOnlyKeys("meta-data", "user-data", "vendor-data");
        assertThat(contents(seed).get("user-data")).isEqualTo("#cloud-config\n");
    }

    @Test
    void writesInstanceIdAndLocalHostnameAsQuotedYaml() {
        NoCloudSeed seed = NoCloudSeed.builder("proxy-1").build();
        assertThat(seed.metaData()).isEqualTo("instance-id: \"proxy-1\"\nlocal-hostname: \"proxy-1\"\n");
        assertThat(contents(seed).get("meta-data")).isEqualTo(seed.metaData());
    }

    @Test
    void quotesLabelsSoYamlCannotReadThemAsNumbersOrBooleans() {
        assertThat(NoCloudSeed.builder("123").build().metaData())
                .isEqualTo("instance-id: \"123\"\nlocal-hostname: \"123\"\n");
        assertThat(NoCloudSeed.builder("no").build().metaData()).startsWith("instance-id: \"no\"\n");
    }

    @ParameterizedTest
    @ValueSource(strings = {" ", "", "a: b\n\"c\"", "x\ninstance-id: evil\t\u0000\u007f", "a\"b\\c", "kůň\u2028🐴",
        "x\uDC00", "Proxy", "-a", "a-",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"})
    void refusesNamesThatAreNotDnsLabelsSoNoneCanChangeTheDocument(String name) {
        assertThatThrownBy(() -> NoCloudSeed.builder(name)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("instance name '" + name + "' is not a DNS label");
    }

    @Test
    void keepsEmptyUserDataAsAnEmptyFile() {
        assertThat(contents(NoCloudSeed.builder("p").build()).get("user-data")).isEmpty();
    }

    @Test
    void keepsUserDataBytesExactlyAndCopiesThemInAndOut() {
        byte[] gzipMagic = {(byte) 0x1F, (byte) 0x8B, 0x08, 0x00, (byte) 0xFF};
        byte[] given = gzipMagic.clone();
        NoCloudSeed seed = NoCloudSeed.builder("p").userData(given).build();
        given[0] = 9;
        seed.files().get("user-data")[1] = 9;
        assertThat(seed.files().get("user-data")).containsExactly(gzipMagic);
    }

    @Test
    void encodesTextAsUtf8WithoutByteOrderMark() {
        assertThat(NoCloudSeed.builder("p").userData("kůň").build().files().get("user-data"))
                .isEqualTo("kůň".getBytes(StandardCharsets.UTF_8)).startsWith('k');
    }

    @Test
    void installsAndStartsTheGuestAgentByDefault() {
        String vendorData = contents(NoCloudSeed.builder("p").build()).get("vendor-data");
        assertThat(vendorData).isEqualTo(NoCloudSeed.DEFAULT_VENDOR_DATA)
                .startsWith("#cloud-config\n")
                .contains("packages:\n  - qemu-guest-agent\n")
                .contains("systemctl, enable, --now, qemu-guest-agent");
    }

    @Test
    void letsTheCallerReplaceOrEmptyTheVendorData() {
        assertThat(contents(NoCloudSeed.builder("p").vendorData("#cloud-config\n{}\n").build())
                .get("vendor-data")).isEqualTo("#cloud-config\n{}\n");
        assertThat(contents(NoCloudSeed.builder("p").vendorData("").build()).get("vendor-data")).isEmpty();
    }

    @Test
    void addsNetworkConfigOnlyWhenGiven() {
        assertThat(contents(NoCloudSeed.builder("p").build())).doesNotContainKey("network-config");
        NoCloudSeed seed = NoCloudSeed.builder("p").networkConfig("version: 2\n").build();
        assertThat(contents(seed)).containsEntry("network-config", "version: 2\n");
    }

    @Test
    void buildsTheSameImageFromAClockAsFromItsInstant() {
        NoCloudSeed seed = NoCloudSeed.builder("p").userData("#cloud-config\n").build();
        byte[] fromClock = seed.toIsoImage(Clock.fixed(NOW, ZoneOffset.ofHours(5)));
        assertThat(fromClock).isEqualTo(seed.toIsoImage(NOW)).isEqualTo(SeedIso.write(NOW, seed.files()));
    }

    @Test
    void acceptsThirtyTwoMebibytesOfContentAndRefusesOneByteMore() {
        int metaData = NoCloudSeed.builder("p").build().metaData().length();
        NoCloudSeed fits = NoCloudSeed.builder("p").vendorData("")
                .userData(new byte[SeedIso.MAXIMUM_CONTENT_BYTES - metaData]).build();
        assertThat(fits.toIsoImage(NOW)).hasSizeGreaterThan(SeedIso.MAXIMUM_CONTENT_BYTES);

        NoCloudSeed over = NoCloudSeed.builder("p").vendorData("x")
                .userData(new byte[SeedIso.MAXIMUM_CONTENT_BYTES - metaData]).build();
        assertThatThrownBy(() -> over.toIsoImage(NOW)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the files hold 33554433 bytes, over the limit of 33554432 for an ISO volume built in"
                        + " memory: shrink them");
    }

    @Test
    void doesNotPrintUserDataInToString() {
        assertThat(NoCloudSeed.builder("p").userData("password: hunter2").build().toString())
                .doesNotContain("hunter2")
                .contains("user-data 17 bytes");
    }

    private static Map<String, String> contents(NoCloudSeed seed) {
        Map<String, String> contents = new TreeMap<>();
        seed.files().forEach((name, content) -> contents.put(name, new String(content, StandardCharsets.UTF_8)));
        return contents;
    }
}

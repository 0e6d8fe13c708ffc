package dev.egressproxies.kvm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.kvm.config.KvmImage;
import org.junit.jupiter.api.Test;

/**
 * The names of {@code kvm} base volumes: key, source tag and format, where the tag is pinned here
 * (a change would orphan every cached base; it is the first 16 hex digits of what {@code printf
 * 'url=URL\nformat=qcow2\ncompression=none\narchive=none\nmember=\n' | sha256sum} prints), differs
 * with every part of the source, and shows nothing of the URL.
 */
class BaseVolumeNamesTest {
    private static final String URL = "https://user:secret@images.example.org/debian/debian-12.qcow2?token=abc";

    @Test
    void theNameIsTheKeyTheSourceTagAndTheFormat() {
        assertThat(BaseVolumeNames.base("debian-12", new KvmImage(URL, null)))
                .isEqualTo("debian-12.e7972bba430b1ddd.base.qcow2");
        assertThat(BaseVolumeNames.baseComplete("debian-12", new KvmImage(URL, null)))
                .isEqualTo("debian-12.e7972bba430b1ddd.base.qcow2.complete");
    }

    @Test
    void anotherUrlOrFormatIsAnotherBaseAndTheNameShowsNothingOfTheUrl() {
        String base = BaseVolumeNames.base("debian-12", new KvmImage(URL, null));

        assertThat(BaseVolumeNames.base("debian-12", new KvmImage(URL.replace("abc", "abd"), null))).isNotEqualTo(base);
        assertThat(BaseVolumeNames.base("debian-12", new KvmImage(URL, "raw"))).isNotEqualTo(base.replace("qcow2", "raw"))
                .endsWith(".base.raw");
        assertThat(base).doesNotContain("secret", "abc", "images", "debian/");
    }

    @Test
    void basesOfEveryKvmEntryAndOfEarlierVersionsAreKnownAndNothingElse() {
        assertThat(BaseVolumeNames.isBase("debian-12.e7972bba430b1ddd.base.qcow2")).isTrue();
        assertThat(BaseVolumeNames.isBase("alpine.e7972bba430b1ddd.base.raw")).isTrue();
        assertThat(BaseVolumeNames.isBase("debian-12.base.qcow2")).as("named before sources were").isTrue();
        assertThat(BaseVolumeNames.isBase("kvm2-test+debian-12.e7972bba430b1ddd.base.qcow2")).as("kvm2's").isFalse();
        assertThat(BaseVolumeNames.isBase("debian-12.base.qcow2.complete")).isFalse();
        assertThat(BaseVolumeNames.isBase("debian-12.base.qcow2.lease")).isFalse();
        assertThat(BaseVolumeNames.isBase("kvm-test+proxy-1.qcow2")).isFalse();
        assertThat(BaseVolumeNames.isBase("kvm-test+proxy-1.seed.iso")).isFalse();
    }
}

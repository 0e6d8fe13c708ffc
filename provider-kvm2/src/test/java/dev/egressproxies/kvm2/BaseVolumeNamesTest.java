package dev.egressproxies.kvm2;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.kvm.common.image.ImageSource;
import org.junit.jupiter.api.Test;

/**
 * The names of {@code kvm2} base volumes: entry, key, source tag and format. The tag is pinned here
 * (a change would orphan every cached base): the first 16 hex digits of what {@code printf
 * 'url=URL\nformat=qcow2\ncompression=none\narchive=none\nmember=\n' | sha256sum} prints.
 */
class BaseVolumeNamesTest {
    private static final String URL = "https://user:secret@images.example.org/debian/debian-12.qcow2?token=abc";

    @Test
    void theNameIsTheEntryTheKeyTheSourceTagAndTheFormat() {
        ImageSource source = ImageSource.builder(URL).build();

        assertThat(BaseVolumeNames.base("lab", "debian-12", source)).isEqualTo("lab+debian-12.e7972bba430b1ddd.base.qcow2");
        assertThat(BaseVolumeNames.base("lab", BaseVolumeNames.URL_KEY, source))
                .isEqualTo("lab+url.e7972bba430b1ddd.base.qcow2").doesNotContain("secret", "abc", "images");
        assertThat(BaseVolumeNames.marker("lab+url.e7972bba430b1ddd.base.qcow2"))
                .isEqualTo("lab+url.e7972bba430b1ddd.base.qcow2.sha256");
    }

    @Test
    void aPinnedDigestDoesNotChangeTheNameButPackagingDoes() {
        ImageSource source = ImageSource.builder(URL).build();

        assertThat(BaseVolumeNames.base("lab", "k", ImageSource.builder(URL).sha256("0".repeat(64)).build()))
                .isEqualTo(BaseVolumeNames.base("lab", "k", source));
        assertThat(BaseVolumeNames.base("lab", "k", ImageSource.builder(URL + ".gz").build()))
                .isNotEqualTo(BaseVolumeNames.base("lab", "k", source));
    }

    @Test
    void onlyThisEntrysBasesAreItsOwnIncludingThoseNamedBeforeSourcesWere() {
        assertThat(BaseVolumeNames.isBase("lab", "lab+debian-12.e7972bba430b1ddd.base.qcow2")).isTrue();
        assertThat(BaseVolumeNames.isBase("lab", "lab+debian-12.base.raw")).isTrue();
        assertThat(BaseVolumeNames.isBase("lab", "lab-2+debian-12.e7972bba430b1ddd.base.qcow2")).isFalse();
        assertThat(BaseVolumeNames.isBase("lab", "debian-12.e7972bba430b1ddd.base.qcow2")).as("kvm's").isFalse();
        assertThat(BaseVolumeNames.isBase("lab", "lab+debian-12.base.qcow2.sha256")).isFalse();
        assertThat(BaseVolumeNames.isBase("lab", "lab+proxy-1.qcow2")).isFalse();
        assertThat(BaseVolumeNames.isBase("lab", "lab+proxy-1.seed.iso")).isFalse();
    }
}

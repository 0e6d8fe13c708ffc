package dev.egressproxies.kvm.common.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.egressproxies.kvm.common.xml.DiskFormat;
import java.net.URI;
import java.util.Optional;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ImageSourceTest {
    private static final String DIGEST = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

    @Nested
    class SuffixRule {
        @ParameterizedTest(name = "{0} -> {1}, {2}")
        @CsvSource({
            "debian-12.qcow2,        NONE,  NONE",
            "disk.qcow2.xz,          XZ,    NONE",
            "disk.img.gz,            GZIP,  NONE",
            "disk.raw.bz2,           BZIP2, NONE",
            "disk.qcow2.zst,         ZSTD,  NONE",
            "DISK.QCOW2.XZ,          XZ,    NONE",
            "image.tar.xz,           XZ,    TAR",
            "image.tar.gz,           GZIP,  TAR",
            "image.tgz,              GZIP,  TAR",
            "image.tar.bz2,          BZIP2, TAR",
            "image.tar.zst,          ZSTD,  TAR",
            "image.txz,              XZ,    TAR",
            "image.tar,              NONE,  TAR",
            "xz-images/disk.qcow2,   NONE,  NONE",
        })
        void theUrlSuffixImpliesCompressionAndArchive(String file, Compression compression, Archive archive) {
            ImageSource source = ImageSource.builder("https://images.example.org/" + file).build();

            assertThat(source.compression()).isEqualTo(compression);
            assertThat(source.archive()).isEqualTo(archive);
        }

        @Test
        void theQueryDoesNotCount() {
            ImageSource source = ImageSource.builder("https://images.example.org/disk.qcow2?name=x.xz").build();

            assertThat(source.compression()).isEqualTo(Compression.NONE);
        }

        @Test
        void aDeclarationWinsOverTheSuffix() {
            ImageSource source = ImageSource.builder("https://images.example.org/disk.qcow2.xz")
                    .compression(Compression.NONE).build();
            ImageSource notArchive = ImageSource.builder("https://images.example.org/image.tar.gz")
                    .archive(Archive.NONE).build();
            ImageSource zstd = ImageSource.builder("https://images.example.org/download?id=7")
                    .compression(Compression.ZSTD).build();

            assertThat(source.compression()).isEqualTo(Compression.NONE);
            assertThat(notArchive.archive()).isEqualTo(Archive.NONE);
            assertThat(notArchive.compression()).isEqualTo(Compression.GZIP);
            assertThat(zstd.compression()).isEqualTo(Compression.ZSTD);
        }

        @Test
        void namingAMemberImpliesATarArchive() {
            ImageSource source = ImageSource.builder("https://images.example.org/download/latest")
                    .compression(Compression.XZ).archiveMember("disk.raw").build();

            assertThat(source.archive()).isEqualTo(Archive.TAR);
            assertThat(source.archiveMember()).contains("disk.raw");
        }
    }

    @Nested
    class Defaults {
        @Test
        void aUrlAloneIsAnUnpinnedQcow2() {
            ImageSource source = ImageSource.builder("http://127.0.0.1:8080/disk.qcow2").build();

            assertThat(source.format()).isEqualTo(DiskFormat.QCOW2);
            assertThat(source.sha256()).isEmpty();
            assertThat(source.archiveMember()).isEmpty();
            assertThat(source.url()).isEqualTo(URI.create("http://127.0.0.1:8080/disk.qcow2"));
        }

        @Test
        void everythingCanBeDeclared() {
            ImageSource source = ImageSource.builder("https://images.example.org/disk.tar.xz")
                    .format(DiskFormat.RAW).archiveMember("./disk.raw").sha256(DIGEST).build();

            assertThat(source).isEqualTo(new ImageSource(URI.create("https://images.example.org/disk.tar.xz"),
                    DiskFormat.RAW, Compression.XZ, Archive.TAR, Optional.of("./disk.raw"), Optional.of(DIGEST)));
        }
    }

    @Nested
    class Validation {
        @ParameterizedTest
        @CsvSource({
            "9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08, lowercase",
            "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a0,  64",
            "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a0g, hex",
            "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0, hex",
        })
        void aSha256MustBe64LowercaseHexDigits(String digest, String said) {
            assertThatThrownBy(() -> ImageSource.builder("https://images.example.org/disk.qcow2").sha256(digest).build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("64 lowercase hex digits")
                    .hasMessageContaining("sha256sum");
        }

        @ParameterizedTest
        @CsvSource({"ftp://images.example.org/disk.qcow2", "file:///var/lib/disk.qcow2", "images.example.org/disk"})
        void onlyHttpAndHttpsUrlsAreAccepted(String url) {
            assertThatThrownBy(() -> ImageSource.builder(url).build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("only http and https");
        }

        @Test
        void aUrlWithoutHostIsRefused() {
            assertThatThrownBy(() -> ImageSource.builder("https:///disk.qcow2").build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("names no host");
        }

        @Test
        void anUnparsableUrlIsRefusedWithoutQuotingIt() {
            assertThatThrownBy(() -> ImageSource.builder("https://user:hunter22@host/a b?token=abc123").build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("not a valid URL")
                    .hasMessageNotContaining("hunter22")
                    .hasMessageNotContaining("abc123");
        }

        @Test
        void aMemberOfAnImageThatIsNoArchiveIsRefused() {
            assertThatThrownBy(() -> ImageSource.builder("https://images.example.org/disk.qcow2")
                    .archive(Archive.NONE).archiveMember("disk.raw").build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no tar archive");
        }

        @Test
        void aBlankMemberIsRefused() {
            assertThatThrownBy(() -> ImageSource.builder("https://images.example.org/x.tar").archiveMember(" ").build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("blank");
        }
    }

    @Nested
    class Redaction {
        @Test
        void theRedactedUrlIsSchemeHostAndPortOnly() {
            URI url = URI.create("https://alice:hunter22@Images.Example.org:8443/private/disk.qcow2?token=abc#x");

            assertThat(RedactedUrl.of(url)).hasToString("https://images.example.org:8443");
            assertThat(RedactedUrl.of(URI.create("http://[::1]/disk"))).hasToString("http://[::1]");
        }

        @Test
        void aSourceShowsItsUrlRedacted() {
            ImageSource source = ImageSource.builder("https://alice:hunter22@images.example.org/private/disk.qcow2?t=abc")
                    .sha256(DIGEST).build();

            assertThat(source.toString())
                    .contains("https://images.example.org", "qcow2", DIGEST)
                    .doesNotContain("alice", "hunter22", "private", "disk.qcow2", "abc");
        }
    }

    @Test
    void compressionNamesParseInAnyCase() {
        assertThat(Compression.parse(" XZ ")).isEqualTo(Compression.XZ);
        assertThat(Compression.parse("zstd")).isEqualTo(Compression.ZSTD);
        assertThatThrownBy(() -> Compression.parse("lz4")).hasMessageContaining("none, xz, gzip, bzip2 or zstd");
    }

    @Nested
    class Identity {
        private static final String URL = "https://user:secret@images.example.org/debian.qcow2?token=abc";

        @Test
        void isTheSha256OfUrlFormatAndPackagingAndShowsNothingOfTheUrl() {
            ImageSource source = ImageSource.builder(URL).build();

            assertThat(source.identitySha256()).isEqualTo(dev.egressproxies.kvm.common.testing.TestBytes.sha256(
                    ("url=" + URL + "\nformat=qcow2\ncompression=none\narchive=none\nmember=\n").getBytes(
                            java.nio.charset.StandardCharsets.UTF_8)));
            assertThat(source.identityTag()).hasSize(16).isEqualTo(source.identitySha256().substring(0, 16));
        }

        @Test
        void changesWithEveryPartOfTheSourceButNotWithThePinnedDigest() {
            ImageSource plain = ImageSource.builder(URL).build();

            assertThat(java.util.stream.Stream.of(
                    ImageSource.builder(URL.replace("secret", "other")).build(),
                    ImageSource.builder(URL.replace("abc", "abd")).build(),
                    ImageSource.builder(URL).format(DiskFormat.RAW).build(),
                    ImageSource.builder(URL).compression(Compression.XZ).build(),
                    ImageSource.builder(URL).archive(Archive.TAR).build(),
                    ImageSource.builder(URL).archiveMember("disk.raw").build())
                    .map(ImageSource::identitySha256)).doesNotHaveDuplicates().doesNotContain(plain.identitySha256());
            assertThat(ImageSource.builder(URL).sha256("0".repeat(64)).build().identitySha256())
                    .isEqualTo(plain.identitySha256());
        }
    }
}

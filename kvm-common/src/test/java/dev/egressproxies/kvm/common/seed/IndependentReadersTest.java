package dev.egressproxies.kvm.common.seed;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reads seed images back with programs that share no code with the writer: xorriso (libisofs),
 * isoinfo (genisoimage), bsdtar (libarchive) and blkid (libblkid, what cloud-init uses to find
 * the seed by its label). Each must see the label {@code cidata}, the lowercase names with their
 * dashes, and byte-for-byte the content that went in.
 *
 * <p>The programs must be installed; see {@link ExternalTool}.
 */
class IndependentReadersTest {
    private static final Instant RECORDED_AT = Instant.parse("2024-05-06T07:08:09.12Z");

    @TempDir
    static Path directory;

    /** The seed image, and what each of its files must contain. */
    private static Path seedImage;
    private static SortedMap<String, byte[]> seedFiles;

    @BeforeAll
    static void writeImages() throws IOException {
        NoCloudSeed seed = NoCloudSeed.builder("proxy-7")
                .userData(largeBinaryAndUtf8UserData())
                .vendorData("#cloud-config\n# žluťoučký kůň úpěl ďábelské ódy 🐴\n" + NoCloudSeed.DEFAULT_VENDOR_DATA)
                .networkConfig("")
                .build();
        seedImage = Files.write(directory.resolve("seed.iso"), seed.toIsoImage(RECORDED_AT));
        seedFiles = seed.files();
    }

    /**
     * 200 KiB and a bit, so the file spans many sectors and ends inside one: every byte value,
     * then UTF-8 text with multi-byte characters, repeated.
     */
    private static byte[] largeBinaryAndUtf8UserData() {
        ByteArrayOutputStream userData = new ByteArrayOutputStream();
        userData.writeBytes("#cloud-config\n".getBytes(StandardCharsets.UTF_8));
        byte[] text = "# příliš žluťoučký kůň ✓ 🐴\n".getBytes(StandardCharsets.UTF_8);
        while (userData.size() < 200 * 1024) {
            for (int value = 0; value < 256; value++) {
                userData.write(value);
            }
            userData.writeBytes(text);
        }
        byte[] bytes = userData.toByteArray();
        return Arrays.copyOf(bytes, 200 * 1024 + 123);
    }

    @Test
    void theSeedHoldsTheNoCloudFilesIncludingLargeAndEmptyOnes() {
        assertThat(seedFiles).containsOnlyKeys("meta-data", "network-config", "user-data", "vendor-data");
        assertThat(seedFiles.get("user-data")).hasSize(200 * 1024 + 123);
        assertThat(seedFiles.get("network-config")).isEmpty();
    }

    @Nested
    class Xorriso {
        @Test
        void listsTheLowercaseNames() throws Exception {
            assertThat(unquoted(ExternalTool.XORRISO.run("-indev", seedImage.toString(), "-ls", "/")))
                    .containsExactlyElementsOf(seedFiles.keySet());
        }

        @Test
        void extractsTheContentByteForByte(@TempDir Path target) throws Exception {
            Path extracted = target.resolve("root");
            ExternalTool.XORRISO.run("-osirrox", "on", "-indev", seedImage.toString(), "-extract", "/", extracted.toString());
            assertThat(filesIn(extracted)).containsOnlyKeys(seedFiles.keySet());
            seedFiles.forEach((name, content) -> assertThat(filesIn(extracted).get(name)).as(name).isEqualTo(content));
        }

        @Test
        void loadsTheJolietTreeAndFindsEveryBlockGood() throws Exception {
            ExternalTool.Result result = ExternalTool.XORRISO.run("-report_about", "WARNING",
                    "-indev", seedImage.toString(), "-toc", "-check_media", "--");
            long sectors = Files.size(seedImage) / 2048;
            assertThat(result.standardOutputText())
                    .containsPattern("ISO loaded\\s*: Joliet")
                    .containsPattern("ISO session\\s*:\\s*1 ,\\s*0 ,\\s*" + sectors + "s , CIDATA")
                    .containsPattern("Media region :\\s*0 ,\\s*" + sectors + " , \\+ good");
            assertThat(result.standardError() + result.standardOutputText())
                    .doesNotContainPattern("WARNING|SORRY|FAILURE|FATAL|MISHAP");
        }

        private static List<String> unquoted(ExternalTool.Result result) {
            return result.standardOutputLines().stream()
                    .filter(line -> line.startsWith("'") && line.endsWith("'"))
                    .map(line -> line.substring(1, line.length() - 1))
                    .toList();
        }
    }

    @Nested
    class Isoinfo {
        @Test
        void describesAnIso9660VolumeWithJolietLevelThree() throws Exception {
            String description = ExternalTool.ISOINFO.run("-d", "-i", seedImage.toString()).standardOutputText();
            assertThat(description)
                    .contains("CD-ROM is in ISO 9660 format")
                    .contains("Volume id: CIDATA")
                    .contains("Logical block size is: 2048")
                    .contains("Volume size is: " + Files.size(seedImage) / 2048)
                    .contains("Joliet with UCS level 3 found");
        }

        @Test
        void findsEveryFileByItsJolietPath() throws Exception {
            assertThat(ExternalTool.ISOINFO.run("-J", "-f", "-i", seedImage.toString()).standardOutputLines())
                    .containsExactlyElementsOf(seedFiles.keySet().stream().map(name -> "/" + name).toList());
        }

        @Test
        void extractsEachFileByteForByte() throws Exception {
            for (Map.Entry<String, byte[]> file : seedFiles.entrySet()) {
                ExternalTool.Result result = ExternalTool.ISOINFO.run("-J", "-x", "/" + file.getKey(), "-i", seedImage.toString());
                assertThat(result.standardOutput()).as(file.getKey()).isEqualTo(file.getValue());
            }
        }

        @Test
        void readsThePrimaryHierarchyWithLevelOneNames() throws Exception {
            assertThat(ExternalTool.ISOINFO.run("-f", "-i", seedImage.toString()).standardOutputLines())
                    .containsExactly("/META_DAT.;1", "/NETWORK_.;1", "/USER_DAT.;1", "/VENDOR_D.;1");
            assertThat(ExternalTool.ISOINFO.run("-x", "/USER_DAT.;1", "-i", seedImage.toString()).standardOutput())
                    .isEqualTo(seedFiles.get("user-data"));
        }
    }

    @Nested
    class Bsdtar {
        @Test
        void listsTheLowercaseNames() throws Exception {
            assertThat(ExternalTool.BSDTAR.run("-tf", seedImage.toString()).standardOutputLines())
                    .filteredOn(name -> !name.equals("."))
                    .containsExactlyInAnyOrderElementsOf(seedFiles.keySet());
        }

        @Test
        void extractsTheContentByteForByte(@TempDir Path target) throws Exception {
            ExternalTool.BSDTAR.run("-xf", seedImage.toString(), "-C", target.toString());
            assertThat(filesIn(target)).containsOnlyKeys(seedFiles.keySet());
            seedFiles.forEach((name, content) -> assertThat(filesIn(target).get(name)).as(name).isEqualTo(content));
        }
    }

    @Nested
    class Blkid {
        @Test
        void reportsTheLabelCloudInitLooksFor() throws Exception {
            assertThat(blkidValue("LABEL")).isEqualTo("cidata");
        }

        @Test
        void reportsAnIso9660Filesystem() throws Exception {
            assertThat(blkidValue("TYPE")).isEqualTo("iso9660");
        }

        @Test
        void probesJolietDirectlyWithoutItsCache() throws Exception {
            assertThat(ExternalTool.BLKID.run("-c", "/dev/null", "-p", "-o", "export", seedImage.toString())
                    .standardOutputLines())
                    .contains("LABEL=cidata", "TYPE=iso9660", "USAGE=filesystem", "VERSION=Joliet\\ Extension");
        }

        private String blkidValue(String tag) throws Exception {
            // -c /dev/null: neither read nor write blkid's cache, so the answer comes from the file.
            return ExternalTool.BLKID.run("-c", "/dev/null", "-o", "value", "-s", tag, seedImage.toString())
                    .standardOutputText().strip();
        }
    }

    /** Reads every regular file under {@code root}, by name. */
    private static Map<String, byte[]> filesIn(Path root) {
        try (Stream<Path> paths = Files.list(root)) {
            return paths.filter(Files::isRegularFile).collect(Collectors.toMap(
                    path -> path.getFileName().toString(), IndependentReadersTest::read, (first, second) -> first,
                    TreeMap::new));
        } catch (IOException failure) {
            throw new UncheckedIOException(failure);
        }
    }

    private static byte[] read(Path path) {
        try {
            return Files.readAllBytes(path);
        } catch (IOException failure) {
            throw new UncheckedIOException(failure);
        }
    }
}

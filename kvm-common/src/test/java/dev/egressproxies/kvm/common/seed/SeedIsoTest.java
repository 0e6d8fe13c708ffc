package dev.egressproxies.kvm.common.seed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.egressproxies.kvm.common.seed.ImageInspector.Record;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TimeZone;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** Checks the bytes {@link SeedIso} produces against ECMA-119 and Joliet, field by field. */
class SeedIsoTest {
    private static final Instant RECORDED_AT = Instant.parse("2024-05-06T07:08:09.12Z");
    private static final int SECTOR = ImageInspector.SECTOR;
    private static final String META_DATA = "instance-id: \"a\"\nlocal-hostname: \"a\"\n";

    /** More than two sectors of bytes of every value, so no sector of it looks like another. */
    private static final byte[] LARGE = patterned(5000);

    private static byte[] patterned(int length) {
        byte[] bytes = new byte[length];
        for (int index = 0; index < length; index++) {
            bytes[index] = (byte) (index * 7 + index / 256);
        }
        return bytes;
    }

    /** All four NoCloud files: a large one, an empty one, two small ones. */
    private static NoCloudSeed sampleSeed() {
        return NoCloudSeed.builder("a").userData(LARGE).vendorData("#cloud-config\n").networkConfig("").build();
    }

    private final byte[] image = sampleSeed().toIsoImage(RECORDED_AT);
    private final ImageInspector inspector = new ImageInspector(image);

    @Nested
    class VolumeAsAWhole {
        @Test
        void isAWholeNumberOfSectorsAndAsLongAsItsVolumeSpaceSize() {
            assertThat(image.length % SECTOR).isZero();
            assertThat(inspector.bothEndian32(16 * SECTOR + 80)).isEqualTo(image.length / SECTOR);
            assertThat(inspector.bothEndian32(17 * SECTOR + 80)).isEqualTo(image.length / SECTOR);
        }

        @Test
        void leavesTheSystemAreaZero() {
            assertThat(inspector.bytes(0, 16 * SECTOR)).containsOnly(0);
        }

        @Test
        void opensWithPrimarySupplementaryAndTerminatorDescriptors() {
            for (int sector = 16; sector <= 18; sector++) {
                assertThat(inspector.ascii(sector * SECTOR + 1, 5)).as("sector %d", sector).isEqualTo("CD001");
                assertThat(inspector.unsigned8(sector * SECTOR + 6)).as("version of sector %d", sector).isEqualTo(1);
            }
            assertThat(inspector.unsigned8(16 * SECTOR)).isEqualTo(1);
            assertThat(inspector.unsigned8(17 * SECTOR)).isEqualTo(2);
            assertThat(inspector.unsigned8(18 * SECTOR)).isEqualTo(255);
            assertThat(inspector.bytes(18 * SECTOR + 7, SECTOR - 7)).containsOnly(0);
        }
    }

    @Nested
    class PrimaryVolumeDescriptor {
        private final long base = 16L * SECTOR;

        @Test
        void recordsTheLabelAsDCharactersPaddedWithSpaces() {
            assertThat(inspector.ascii(base + 40, 32)).isEqualTo(String.format("%-32s", "CIDATA"));
            assertThat(inspector.ascii(base + 8, 32)).isBlank();
        }

        @Test
        void recordsSetSizeSequenceNumberAndBlockSizeBothEndian() {
            assertThat(inspector.bothEndian16(base + 120)).isEqualTo(1);
            assertThat(inspector.bothEndian16(base + 124)).isEqualTo(1);
            assertThat(inspector.bytes(base + 128, 4)).containsExactly(0x00, 0x08, 0x08, 0x00);
            assertThat(inspector.bothEndian16(base + 128)).isEqualTo(2048);
        }

        @Test
        void pointsAtPathTablesInBothByteOrdersThatNameTheRoot() {
            assertThat(inspector.bothEndian32(base + 132)).isEqualTo(10);
            long rootExtent = inspector.rootRecordOf(16).extent();
            long littleEndianTable = inspector.littleEndian32(base + 140) * SECTOR;
            long bigEndianTable = inspector.bigEndian32(base + 148) * SECTOR;
            assertThat(inspector.littleEndian32(base + 144)).as("no optional L table").isZero();
            assertThat(inspector.bigEndian32(base + 152)).as("no optional M table").isZero();

            assertThat(inspector.unsigned8(littleEndianTable)).as("identifier length").isEqualTo(1);
            assertThat(inspector.littleEndian32(littleEndianTable + 2)).isEqualTo(rootExtent);
            assertThat(inspector.littleEndian16(littleEndianTable + 6)).as("parent number").isEqualTo(1);
            assertThat(inspector.unsigned8(littleEndianTable + 8)).as("root identifier").isZero();

            assertThat(inspector.unsigned8(bigEndianTable)).isEqualTo(1);
            assertThat(inspector.bigEndian32(bigEndianTable + 2)).isEqualTo(rootExtent);
            assertThat(inspector.bigEndian16(bigEndianTable + 6)).isEqualTo(1);
        }

        @Test
        void holdsARootDirectoryRecordOf34BytesForAOneSectorDirectory() {
            Record root = inspector.rootRecordOf(16);
            assertThat(root.length()).isEqualTo(34);
            assertThat(root.identifier()).containsExactly(0);
            assertThat(root.flags()).as("directory flag").isEqualTo(2);
            assertThat(root.dataLength()).isEqualTo(SECTOR);
            assertThat(root.volumeSequenceNumber()).isEqualTo(1);
        }

        @Test
        void recordsCreationAndModificationTimeInUtcAndLeavesTheOthersUnspecified() {
            byte[] recorded = "2024050607080912\0".getBytes(StandardCharsets.US_ASCII);
            byte[] unspecified = "0000000000000000\0".getBytes(StandardCharsets.US_ASCII);
            assertThat(inspector.bytes(base + 813, 17)).isEqualTo(recorded);
            assertThat(inspector.bytes(base + 830, 17)).isEqualTo(recorded);
            assertThat(inspector.bytes(base + 847, 17)).isEqualTo(unspecified);
            assertThat(inspector.bytes(base + 864, 17)).isEqualTo(unspecified);
            assertThat(inspector.unsigned8(base + 881)).as("file structure version").isEqualTo(1);
        }

        @Test
        void namesTheApplicationThatMadeIt() {
            assertThat(inspector.ascii(base + 574, 128).strip()).isEqualTo("EGRESS-PROXIES");
        }
    }

    @Nested
    class JolietSupplementaryVolumeDescriptor {
        private final long base = 17L * SECTOR;

        @Test
        void declaresUcs2LevelThreeWithTheEscapeSequencePercentSlashE() {
            assertThat(inspector.ascii(base + 88, 3)).isEqualTo("%/E");
            assertThat(inspector.bytes(base + 91, 29)).containsOnly(0);
            assertThat(inspector.unsigned8(base + 7)).as("volume flags").isZero();
        }

        @Test
        void keepsTheLabelLowercaseInUcs2PaddedWithUcs2Spaces() {
            String label = new String(inspector.bytes(base + 40, 32), StandardCharsets.UTF_16BE);
            assertThat(label).isEqualTo(String.format("%-16s", "cidata"));
        }

        @Test
        void hasItsOwnPathTablesAndRootDirectory() {
            long jolietRoot = inspector.rootRecordOf(17).extent();
            assertThat(jolietRoot).isNotEqualTo(inspector.rootRecordOf(16).extent());
            assertThat(inspector.littleEndian32(inspector.littleEndian32(base + 140) * SECTOR + 2)).isEqualTo(jolietRoot);
            assertThat(inspector.bigEndian32(inspector.bigEndian32(base + 148) * SECTOR + 2)).isEqualTo(jolietRoot);
        }
    }

    @Nested
    class Directories {
        @Test
        void startWithSelfAndParentRecordsThatPointAtTheRoot() {
            for (int descriptor : new int[] {16, 17}) {
                Record root = inspector.rootRecordOf(descriptor);
                List<Record> records = inspector.recordsOf(root);
                assertThat(records.get(0).identifier()).containsExactly(0);
                assertThat(records.get(1).identifier()).containsExactly(1);
                for (Record self : records.subList(0, 2)) {
                    assertThat(self.extent()).isEqualTo(root.extent());
                    assertThat(self.dataLength()).isEqualTo(root.dataLength());
                    assertThat(self.flags()).isEqualTo(2);
                }
            }
        }

        @Test
        void giveThePrimaryHierarchyLevelOneNamesInEcma119Order() {
            assertThat(fileRecords(16)).extracting(Record::asciiIdentifier)
                    .containsExactly("META_DAT.;1", "NETWORK_.;1", "USER_DAT.;1", "VENDOR_D.;1");
        }

        @Test
        void giveTheJolietHierarchyTheNamesAsGivenInUcs2WithoutVersion() {
            assertThat(fileRecords(17)).extracting(Record::ucs2Identifier)
                    .containsExactly("meta-data", "network-config", "user-data", "vendor-data");
        }

        @Test
        void pointBothHierarchiesAtTheSameSectorAlignedData() {
            Map<String, byte[]> expected = Map.of(
                    "meta-data", META_DATA.getBytes(StandardCharsets.UTF_8),
                    "network-config", new byte[0],
                    "user-data", LARGE,
                    "vendor-data", "#cloud-config\n".getBytes(StandardCharsets.UTF_8));
            List<Record> primary = fileRecords(16);
            List<Record> joliet = fileRecords(17);
            for (int index = 0; index < joliet.size(); index++) {
                Record file = joliet.get(index);
                assertThat(inspector.content(file)).as(file.ucs2Identifier()).isEqualTo(expected.get(file.ucs2Identifier()));
                assertThat(primary.get(index).extent()).isEqualTo(file.extent());
                assertThat(primary.get(index).dataLength()).isEqualTo(file.dataLength());
                assertThat(file.flags()).isZero();
            }
        }

        @Test
        void padTheLastSectorOfEachFileWithZeros() {
            Record userData = fileRecords(17).get(2);
            assertThat(userData.ucs2Identifier()).isEqualTo("user-data");
            long end = userData.extent() * SECTOR + userData.dataLength();
            assertThat(inspector.bytes(end, Math.toIntExact(SECTOR - end % SECTOR))).containsOnly(0);
        }

        @Test
        void keepFileDataInsideTheVolumeWithoutOverlap() {
            List<Record> files = new ArrayList<>(fileRecords(17));
            files.sort((left, right) -> Long.compare(left.extent(), right.extent()));
            long nextFree = inspector.rootRecordOf(17).extent() + 1;
            for (Record file : files) {
                assertThat(file.extent()).as(file.ucs2Identifier()).isGreaterThanOrEqualTo(nextFree);
                nextFree = file.extent() + (file.dataLength() + SECTOR - 1) / SECTOR;
            }
            assertThat(nextFree).isEqualTo(image.length / SECTOR);
        }

        @Test
        void recordTheTimeInSevenByteUtcForm() {
            assertThat(fileRecords(16).get(0).date()).containsExactly(124, 5, 6, 7, 8, 9, 0);
        }

        private List<Record> fileRecords(int descriptorSector) {
            List<Record> records = inspector.recordsOf(inspector.rootRecordOf(descriptorSector));
            return records.subList(2, records.size());
        }
    }

    @Nested
    class Determinism {
        @Test
        void sameVolumeGivesSameBytes() {
            assertThat(sampleSeed().toIsoImage(RECORDED_AT)).isEqualTo(image);
        }

        @Test
        void recordingTimeChangesOnlyDateFields() {
            byte[] later = sampleSeed().toIsoImage(RECORDED_AT.plusSeconds(3600));
            assertThat(later).hasSameSizeAs(image).isNotEqualTo(image);
            assertThat(new ImageInspector(later).rootRecordOf(16).extent()).isEqualTo(inspector.rootRecordOf(16).extent());
        }

        @Test
        void doesNotDependOnTheDefaultTimeZoneOrLocale() {
            TimeZone zone = TimeZone.getDefault();
            Locale locale = Locale.getDefault();
            try {
                TimeZone.setDefault(TimeZone.getTimeZone("Asia/Kolkata"));
                Locale.setDefault(Locale.forLanguageTag("ar-EG-u-nu-arab"));
                assertThat(sampleSeed().toIsoImage(RECORDED_AT)).isEqualTo(image);
            } finally {
                TimeZone.setDefault(zone);
                Locale.setDefault(locale);
            }
        }
    }

    @Nested
    class RecordingTime {
        private static final Instant INSTANT = Instant.parse("2031-12-25T23:59:58.987654321Z");

        @Test
        void volumeDescriptorDateIsSixteenDigitsWithHundredthsAndAZeroOffset() {
            assertThat(new ImageInspector(sampleSeed().toIsoImage(INSTANT)).bytes(16L * SECTOR + 813, 17))
                    .isEqualTo("2031122523595898\0".getBytes(StandardCharsets.US_ASCII));
        }

        @Test
        void directoryRecordDateCountsYearsSince1900() {
            ImageInspector later = new ImageInspector(sampleSeed().toIsoImage(INSTANT));
            assertThat(later.rootRecordOf(17).date()).containsExactly(131, 12, 25, 23, 59, 58, 0);
        }

        @Test
        void acceptsTheYearsASingleByteAfter1900CanHoldAndNoOthers() {
            assertThat(sampleSeed().toIsoImage(Instant.parse("1900-01-01T00:00:00Z"))).isNotEmpty();
            ImageInspector last = new ImageInspector(sampleSeed().toIsoImage(Instant.parse("2155-12-31T23:59:59Z")));
            assertThat(last.rootRecordOf(16).date()[0]).isEqualTo((byte) 255);
            for (String outside : new String[] {"2156-01-01T00:00:00Z", "1899-12-31T23:59:59Z", "2200-01-01T00:00:00Z"}) {
                assertThatThrownBy(() -> sampleSeed().toIsoImage(Instant.parse(outside)))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("outside the years 1900 to 2155");
            }
        }
    }
}

package dev.egressproxies.kvm.common.seed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.kvm.common.seed.ImageInspector.Record;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TimeZone;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** Checks the bytes {@link Iso9660Writer} produces against ECMA-119 and Joliet, field by field. */
class Iso9660WriterLayoutTest {
    private static final Instant RECORDED_AT = Instant.parse("2024-05-06T07:08:09.12Z");
    private static final int SECTOR = ImageInspector.SECTOR;

    /** More than two sectors of bytes of every value, so no sector of it looks like another. */
    private static final byte[] LARGE = patterned(5000);

    private static byte[] patterned(int length) {
        byte[] bytes = new byte[length];
        for (int index = 0; index < length; index++) {
            bytes[index] = (byte) (index * 7 + index / 256);
        }
        return bytes;
    }

    private static IsoVolume sampleVolume() {
        return new IsoVolume("cidata", RECORDED_AT, List.of(
                IsoFile.ofUtf8("user-data", "#cloud-config\n"),
                IsoFile.ofUtf8("meta-data", "instance-id: \"a\"\n"),
                IsoFile.of("vendor-data", LARGE),
                IsoFile.of("empty", new byte[0])));
    }

    private final byte[] image = Iso9660Writer.toByteArray(sampleVolume());
    private final ImageInspector inspector = new ImageInspector(image);

    @Nested
    class VolumeAsAWhole {
        @Test
        void isAWholeNumberOfSectorsAndAsLongAsItsVolumeSpaceSize() {
            assertThat(image.length % SECTOR).isZero();
            assertThat(inspector.bothEndian32(16 * SECTOR + 80)).isEqualTo(image.length / SECTOR);
            assertThat(inspector.bothEndian32(17 * SECTOR + 80)).isEqualTo(image.length / SECTOR);
            assertThat(Iso9660Writer.imageSize(sampleVolume())).isEqualTo(image.length);
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

        @Test
        void writesToAStreamExactlyWhatItReturnsAsBytes() throws Exception {
            ByteArrayOutputStream stream = new ByteArrayOutputStream();
            Iso9660Writer.write(sampleVolume(), stream);
            assertThat(stream.toByteArray()).isEqualTo(image);
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
                    .containsExactly("EMPTY.;1", "META_DAT.;1", "USER_DAT.;1", "VENDOR_D.;1");
        }

        @Test
        void giveTheJolietHierarchyTheNamesAsGivenInUcs2WithoutVersion() {
            assertThat(fileRecords(17)).extracting(Record::ucs2Identifier)
                    .containsExactly("empty", "meta-data", "user-data", "vendor-data");
        }

        @Test
        void pointBothHierarchiesAtTheSameSectorAlignedData() {
            Map<String, byte[]> expected = Map.of(
                    "empty", new byte[0],
                    "meta-data", "instance-id: \"a\"\n".getBytes(StandardCharsets.UTF_8),
                    "user-data", "#cloud-config\n".getBytes(StandardCharsets.UTF_8),
                    "vendor-data", LARGE);
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
            Record vendorData = fileRecords(17).get(3);
            long end = vendorData.extent() * SECTOR + vendorData.dataLength();
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

        @Test
        void spanSeveralSectorsWithoutARecordCrossingABoundary() {
            List<IsoFile> files = IntStream.range(0, 200)
                    .mapToObj(index -> IsoFile.ofUtf8(String.format("%03d", index) + "-".repeat(61), "file " + index))
                    .toList();
            ImageInspector many = new ImageInspector(Iso9660Writer.toByteArray(new IsoVolume("many", RECORDED_AT, files)));

            Record jolietRoot = many.rootRecordOf(17);
            assertThat(jolietRoot.dataLength()).isGreaterThan(10L * SECTOR);
            List<Record> jolietFiles = many.recordsOf(jolietRoot).subList(2, 202);
            for (int index = 0; index < 200; index++) {
                Record file = jolietFiles.get(index);
                assertThat(file.ucs2Identifier()).isEqualTo(files.get(index).name());
                assertThat(many.content(file)).isEqualTo(files.get(index).content());
            }
            List<Record> primaryFiles = many.recordsOf(many.rootRecordOf(16)).subList(2, 202);
            assertThat(primaryFiles).extracting(Record::asciiIdentifier).doesNotHaveDuplicates()
                    .allMatch(identifier -> identifier.matches("[A-Z0-9_]{1,8}\\.[A-Z0-9_]{0,3};1"));
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
            assertThat(Iso9660Writer.toByteArray(sampleVolume())).isEqualTo(image);
        }

        @Test
        void fileOrderDoesNotMatter() {
            List<IsoFile> reversed = new ArrayList<>(sampleVolume().files());
            Collections.reverse(reversed);
            assertThat(Iso9660Writer.toByteArray(new IsoVolume("cidata", RECORDED_AT, reversed))).isEqualTo(image);
        }

        @Test
        void recordingTimeChangesOnlyDateFields() {
            byte[] later = Iso9660Writer.toByteArray(
                    new IsoVolume("cidata", RECORDED_AT.plusSeconds(3600), sampleVolume().files()));
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
                assertThat(Iso9660Writer.toByteArray(sampleVolume())).isEqualTo(image);
            } finally {
                TimeZone.setDefault(zone);
                Locale.setDefault(locale);
            }
        }

        @Test
        void collidingPrimaryNamesAreNumberedByNameNotByInputOrder() {
            List<IsoFile> files = List.of(IsoFile.ofUtf8("vendor-data2", "b"), IsoFile.ofUtf8("vendor-data", "a"));
            ImageInspector colliding = new ImageInspector(Iso9660Writer.toByteArray(new IsoVolume("x", RECORDED_AT, files)));
            Map<String, String> primaryNameOf = new HashMap<>();
            for (Record record : colliding.recordsOf(colliding.rootRecordOf(16)).subList(2, 4)) {
                primaryNameOf.put(new String(colliding.content(record), StandardCharsets.UTF_8), record.asciiIdentifier());
            }
            assertThat(primaryNameOf).containsEntry("a", "VENDOR_D.;1").containsEntry("b", "VENDOR_1.;1");
        }
    }
}

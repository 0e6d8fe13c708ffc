package dev.egressproxies.kvm.common.seed;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A test-side reader of the raw bytes of an ISO image, written from ECMA-119 rather than from
 * the writer's code: it checks that both-endian fields agree and that directory records stay
 * inside their sectors while it reads.
 */
final class ImageInspector {
    static final int SECTOR = 2048;

    private final byte[] image;

    ImageInspector(byte[] image) {
        this.image = image;
    }

    byte[] sector(long sector) {
        return Arrays.copyOfRange(image, Math.toIntExact(sector * SECTOR), Math.toIntExact((sector + 1) * SECTOR));
    }

    int unsigned8(long offset) {
        return image[Math.toIntExact(offset)] & 0xFF;
    }

    long littleEndian32(long offset) {
        return unsigned8(offset) | (long) unsigned8(offset + 1) << 8 | (long) unsigned8(offset + 2) << 16
                | (long) unsigned8(offset + 3) << 24;
    }

    long bigEndian32(long offset) {
        return (long) unsigned8(offset) << 24 | (long) unsigned8(offset + 1) << 16 | (long) unsigned8(offset + 2) << 8
                | unsigned8(offset + 3);
    }

    int littleEndian16(long offset) {
        return unsigned8(offset) | unsigned8(offset + 1) << 8;
    }

    int bigEndian16(long offset) {
        return unsigned8(offset) << 8 | unsigned8(offset + 1);
    }

    /** Reads a both-endian 32-bit field (ECMA-119 7.3.3), asserting its halves agree. */
    long bothEndian32(long offset) {
        long value = littleEndian32(offset);
        assertThat(bigEndian32(offset + 4)).as("big-endian half of the field at offset %d", offset).isEqualTo(value);
        return value;
    }

    /** Reads a both-endian 16-bit field (ECMA-119 7.2.3), asserting its halves agree. */
    int bothEndian16(long offset) {
        int value = littleEndian16(offset);
        assertThat(bigEndian16(offset + 2)).as("big-endian half of the field at offset %d", offset).isEqualTo(value);
        return value;
    }

    byte[] bytes(long offset, int length) {
        return Arrays.copyOfRange(image, Math.toIntExact(offset), Math.toIntExact(offset + length));
    }

    String ascii(long offset, int length) {
        return new String(bytes(offset, length), StandardCharsets.US_ASCII);
    }

    /** Parses the directory record at {@code offset} (ECMA-119 9.1). */
    Record record(long offset) {
        int length = unsigned8(offset);
        int identifierLength = unsigned8(offset + 32);
        return new Record(offset, length, bothEndian32(offset + 2), bothEndian32(offset + 10),
                bytes(offset + 18, 7), unsigned8(offset + 25), bothEndian16(offset + 28),
                bytes(offset + 33, identifierLength));
    }

    /** Parses the root directory record of the volume descriptor in {@code descriptorSector}. */
    Record rootRecordOf(long descriptorSector) {
        return record(descriptorSector * SECTOR + 156);
    }

    /**
     * Parses every record of the directory whose own record is {@code directory}, following
     * ECMA-119 6.8.1.1: a zero length byte means the rest of the sector is unused.
     */
    List<Record> recordsOf(Record directory) {
        List<Record> records = new ArrayList<>();
        long start = directory.extent() * SECTOR;
        long end = start + directory.dataLength();
        long offset = start;
        while (offset < end) {
            int length = unsigned8(offset);
            if (length == 0) {
                offset = (offset / SECTOR + 1) * SECTOR;
                continue;
            }
            Record record = record(offset);
            assertThat(offset % SECTOR + length).as("record at offset %d ends within its sector", offset)
                    .isLessThanOrEqualTo(SECTOR);
            records.add(record);
            offset += length;
        }
        return records;
    }

    /** Returns a file's content as its record describes it. */
    byte[] content(Record record) {
        return bytes(record.extent() * SECTOR, Math.toIntExact(record.dataLength()));
    }

    /** One parsed directory record. */
    record Record(long offset, int length, long extent, long dataLength, byte[] date, int flags,
            int volumeSequenceNumber, byte[] identifier) {
        String asciiIdentifier() {
            return new String(identifier, StandardCharsets.US_ASCII);
        }

        String ucs2Identifier() {
            return new String(identifier, StandardCharsets.UTF_16BE);
        }
    }
}

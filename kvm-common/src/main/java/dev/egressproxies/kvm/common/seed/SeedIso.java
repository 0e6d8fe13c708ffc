package dev.egressproxies.kvm.common.seed;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;

/**
 * The ISO 9660 image of a NoCloud seed: ECMA-119 with a Joliet tree over the same data, a handful
 * of files in the root directory and nothing else. Offsets below are ECMA-119 byte positions
 * minus one. The same time and files always give the same bytes; docs/design.md shows the layout.
 */
final class SeedIso {
    static final int SECTOR = 2048;
    /** Bounds the image, which is built in memory. */
    static final int MAXIMUM_CONTENT_BYTES = 32 * 1024 * 1024;
    static final String APPLICATION_IDENTIFIER = "EGRESS-PROXIES";

    private static final int PRIMARY_DESCRIPTOR = 16;
    private static final int JOLIET_DESCRIPTOR = 17;
    private static final int TERMINATOR = 18;
    private static final int FIRST_PATH_TABLE = 19;
    private static final int PRIMARY_ROOT = 23;
    private static final int JOLIET_ROOT = 24;
    private static final int FIRST_FILE = 25;
    private static final int PATH_TABLE_BYTES = 10;
    private static final int FIRST_YEAR = 1900;
    private static final int LAST_YEAR = FIRST_YEAR + 255;

    private final ZonedDateTime recordedAt;
    private final SortedMap<String, byte[]> files;
    private final Map<String, Integer> extents = new LinkedHashMap<>();
    private final ByteBuffer image;

    private SeedIso(Instant recordedAt, SortedMap<String, byte[]> files) {
        this.recordedAt = recordedAt.atZone(ZoneOffset.UTC);
        this.files = files;
        int nextSector = FIRST_FILE;
        for (Map.Entry<String, byte[]> file : files.entrySet()) {
            // An empty file takes no sector and points where the next data would start, as genisoimage does.
            extents.put(file.getKey(), nextSector);
            nextSector += (file.getValue().length + SECTOR - 1) / SECTOR;
        }
        this.image = ByteBuffer.allocate(nextSector * SECTOR);
    }

    /**
     * Returns the image of {@code files}, labelled {@value NoCloudSeed#VOLUME_LABEL}, recorded at {@code recordedAt}.
     *
     * @param files lowercase names of letters and dashes (the NoCloud names), by name
     * @throws IllegalArgumentException when the files hold over {@value #MAXIMUM_CONTENT_BYTES} bytes or the
     *                                  time's UTC year is outside 1900 to 2155
     */
    static byte[] write(Instant recordedAt, SortedMap<String, byte[]> files) {
        long contentBytes = files.values().stream().mapToLong(content -> content.length).sum();
        if (contentBytes > MAXIMUM_CONTENT_BYTES) {
            throw new IllegalArgumentException("the files hold " + contentBytes + " bytes, over the limit of "
                    + MAXIMUM_CONTENT_BYTES + " for an ISO volume built in memory: shrink them");
        }
        int year = recordedAt.atZone(ZoneOffset.UTC).getYear();
        if (year < FIRST_YEAR || year > LAST_YEAR) {
            throw new IllegalArgumentException("recording time " + recordedAt + " is outside the years "
                    + FIRST_YEAR + " to " + LAST_YEAR + " that an ISO 9660 directory record can hold");
        }
        return new SeedIso(recordedAt, files).encode();
    }

    private byte[] encode() {
        descriptor(PRIMARY_DESCRIPTOR, false);
        descriptor(JOLIET_DESCRIPTOR, true);
        header(TERMINATOR, 255);
        pathTable(FIRST_PATH_TABLE, ByteOrder.LITTLE_ENDIAN, PRIMARY_ROOT);
        pathTable(FIRST_PATH_TABLE + 1, ByteOrder.BIG_ENDIAN, PRIMARY_ROOT);
        pathTable(FIRST_PATH_TABLE + 2, ByteOrder.LITTLE_ENDIAN, JOLIET_ROOT);
        pathTable(FIRST_PATH_TABLE + 3, ByteOrder.BIG_ENDIAN, JOLIET_ROOT);
        rootDirectory(PRIMARY_ROOT, false);
        rootDirectory(JOLIET_ROOT, true);
        files.forEach((name, content) -> image.put(extents.get(name) * SECTOR, content));
        return image.array();
    }

    /** The primary (8.4) or Joliet supplementary (8.5) volume descriptor; both share one layout. */
    private void descriptor(int sector, boolean joliet) {
        int base = header(sector, joliet ? 2 : 1);
        text(base + 8, 32, "", joliet); // system identifier
        String label = NoCloudSeed.VOLUME_LABEL;
        // d-characters only in the primary descriptor (7.4.1): uppercase.
        text(base + 40, 32, joliet ? label : label.toUpperCase(Locale.ROOT), joliet);
        bothEndian32(base + 80, image.capacity() / SECTOR);
        if (joliet) {
            image.put(base + 88, new byte[] {'%', '/', 'E'}); // UCS-2 level 3
        }
        bothEndian16(base + 120, 1); // volume set size
        bothEndian16(base + 124, 1); // volume sequence number
        bothEndian16(base + 128, SECTOR);
        bothEndian32(base + 132, PATH_TABLE_BYTES);
        int root = joliet ? JOLIET_ROOT : PRIMARY_ROOT;
        int firstTable = FIRST_PATH_TABLE + (joliet ? 2 : 0);
        image.order(ByteOrder.LITTLE_ENDIAN).putInt(base + 140, firstTable);
        image.order(ByteOrder.BIG_ENDIAN).putInt(base + 148, firstTable + 1);
        record(base + 156, new byte[] {0}, root, SECTOR, true);
        for (int offset : new int[] {190, 318, 446}) {
            text(base + offset, 128, "", joliet); // volume set, publisher, data preparer
        }
        text(base + 574, 128, APPLICATION_IDENTIFIER, joliet);
        for (int offset : new int[] {702, 739, 776}) {
            text(base + offset, 37, "", joliet); // copyright, abstract, bibliographic file
        }
        String created = String.format(Locale.ROOT, "%04d%02d%02d%02d%02d%02d%02d", recordedAt.getYear(),
                recordedAt.getMonthValue(), recordedAt.getDayOfMonth(), recordedAt.getHour(), recordedAt.getMinute(),
                recordedAt.getSecond(), recordedAt.getNano() / 10_000_000);
        // Creation and modification, then expiration and effective "not specified"; offsets from UTC stay 0.
        image.put(base + 813, created.getBytes(StandardCharsets.US_ASCII));
        image.put(base + 830, created.getBytes(StandardCharsets.US_ASCII));
        image.put(base + 847, "0".repeat(16).getBytes(StandardCharsets.US_ASCII));
        image.put(base + 864, "0".repeat(16).getBytes(StandardCharsets.US_ASCII));
        image.put(base + 881, (byte) 1); // file structure version
    }

    /** Type, "CD001" and version 1, which every volume descriptor starts with (8.1); returns its offset. */
    private int header(int sector, int type) {
        int base = sector * SECTOR;
        image.put(base, (byte) type);
        image.put(base + 1, "CD001".getBytes(StandardCharsets.US_ASCII));
        image.put(base + 6, (byte) 1);
        return base;
    }

    /** A path table (9.4) holding the root's record alone: identifier 0x00, parent directory 1. */
    private void pathTable(int sector, ByteOrder order, int rootSector) {
        int base = sector * SECTOR;
        image.put(base, (byte) 1);
        image.order(order).putInt(base + 2, rootSector);
        image.order(order).putShort(base + 6, (short) 1);
    }

    /**
     * The root directory: records for itself and its parent (itself), then one per file in name
     * order. The NoCloud names keep that order as level 1 identifiers, so it is also the 9.3 order.
     */
    private void rootDirectory(int sector, boolean joliet) {
        int offset = sector * SECTOR;
        offset += record(offset, new byte[] {0}, sector, SECTOR, true);
        offset += record(offset, new byte[] {1}, sector, SECTOR, true);
        for (Map.Entry<String, byte[]> file : files.entrySet()) {
            offset += record(offset, identifier(file.getKey(), joliet), extents.get(file.getKey()),
                    file.getValue().length, false);
        }
    }

    /**
     * Joliet keeps the name as given, without the {@code ;1} version its readers strip anyway; the
     * primary tree gets an interchange level 1 name: {@code user-data} becomes {@code USER_DAT.;1}.
     */
    private static byte[] identifier(String name, boolean joliet) {
        if (joliet) {
            return name.getBytes(StandardCharsets.UTF_16BE);
        }
        String dCharacters = name.toUpperCase(Locale.ROOT).replace('-', '_');
        return (dCharacters.substring(0, Math.min(8, dCharacters.length())) + ".;1").getBytes(StandardCharsets.US_ASCII);
    }

    /** A directory record (9.1), padded to an even length; returns that length. */
    private int record(int offset, byte[] identifier, int extent, int dataLength, boolean directory) {
        int length = 33 + identifier.length + (identifier.length % 2 == 0 ? 1 : 0);
        image.put(offset, (byte) length);
        bothEndian32(offset + 2, extent);
        bothEndian32(offset + 10, dataLength);
        image.put(offset + 18, new byte[] {(byte) (recordedAt.getYear() - FIRST_YEAR), (byte) recordedAt.getMonthValue(),
                (byte) recordedAt.getDayOfMonth(), (byte) recordedAt.getHour(), (byte) recordedAt.getMinute(),
                (byte) recordedAt.getSecond(), 0});
        image.put(offset + 25, (byte) (directory ? 2 : 0));
        bothEndian16(offset + 28, 1); // volume sequence number
        image.put(offset + 32, (byte) identifier.length);
        image.put(offset + 33, identifier);
        return length;
    }

    /** A text field padded with spaces: ASCII, or UCS-2 big-endian for Joliet (an odd width ends in a zero byte). */
    private void text(int offset, int width, String text, boolean joliet) {
        for (int index = joliet ? 1 : 0; index < width; index += joliet ? 2 : 1) {
            image.put(offset + index, (byte) ' ');
        }
        image.put(offset, text.getBytes(joliet ? StandardCharsets.UTF_16BE : StandardCharsets.US_ASCII));
    }

    /** Little-endian then big-endian (7.3.3), so readers on either kind of machine read it directly. */
    private void bothEndian32(int offset, int value) {
        image.order(ByteOrder.LITTLE_ENDIAN).putInt(offset, value);
        image.order(ByteOrder.BIG_ENDIAN).putInt(offset + 4, value);
    }

    private void bothEndian16(int offset, int value) {
        image.order(ByteOrder.LITTLE_ENDIAN).putShort(offset, (short) value);
        image.order(ByteOrder.BIG_ENDIAN).putShort(offset + 2, (short) value);
    }
}

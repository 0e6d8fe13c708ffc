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
 * of files in the root directory and nothing else.
 */
final class SeedIso {
    static final int SECTOR = 2048;
    /** Bounds the image, which is built in memory. */
    static final int MAXIMUM_CONTENT_BYTES = 32 * 1024 * 1024;
    private static final String APPLICATION_IDENTIFIER = "EGRESS-PROXIES";

    /** Sectors of the primary tree; the Joliet tree's descriptor and root are one further, its path tables two. */
    private static final int DESCRIPTOR = 16;
    private static final int TERMINATOR = 18;
    private static final int PATH_TABLES = 19;
    private static final int ROOT = 23;
    private static final int FIRST_FILE = 25;
    private static final int FIRST_YEAR = 1900;

    private final SortedMap<String, byte[]> files;
    private final Map<String, Integer> extents = new LinkedHashMap<>();
    private final byte[] recordDate;
    private final byte[] descriptorDate;
    private final ByteBuffer image;

    private SeedIso(Instant recordedAt, SortedMap<String, byte[]> files) {
        this.files = files;
        int nextSector = FIRST_FILE;
        for (Map.Entry<String, byte[]> file : files.entrySet()) {
            // An empty file takes no sector and points where the next data would start, as genisoimage does.
            extents.put(file.getKey(), nextSector);
            nextSector += (file.getValue().length + SECTOR - 1) / SECTOR;
        }
        ZonedDateTime utc = recordedAt.atZone(ZoneOffset.UTC);
        // 9.1.5 and 8.4.26.1; both end in a zero offset from UTC.
        this.recordDate = new byte[] {(byte) (utc.getYear() - FIRST_YEAR), (byte) utc.getMonthValue(),
            (byte) utc.getDayOfMonth(), (byte) utc.getHour(), (byte) utc.getMinute(), (byte) utc.getSecond(), 0};
        this.descriptorDate = String.format(Locale.ROOT, "%04d%02d%02d%02d%02d%02d%02d\0", utc.getYear(),
                utc.getMonthValue(), utc.getDayOfMonth(), utc.getHour(), utc.getMinute(), utc.getSecond(),
                utc.getNano() / 10_000_000).getBytes(StandardCharsets.US_ASCII);
        this.image = ByteBuffer.allocate(nextSector * SECTOR);
    }

    /** The image of {@code files} (NoCloud names: lowercase letters and dashes). */
    static byte[] write(Instant recordedAt, SortedMap<String, byte[]> files) {
        long contentBytes = files.values().stream().mapToLong(content -> content.length).sum();
        if (contentBytes > MAXIMUM_CONTENT_BYTES) {
            throw new IllegalArgumentException("the files hold " + contentBytes + " bytes, over the limit of "
                    + MAXIMUM_CONTENT_BYTES + " for an ISO volume built in memory: shrink them");
        }
        int year = recordedAt.atZone(ZoneOffset.UTC).getYear();
        if (year < FIRST_YEAR || year > FIRST_YEAR + 255) {
            throw new IllegalArgumentException("recording time " + recordedAt + " is outside the years "
                    + FIRST_YEAR + " to " + (FIRST_YEAR + 255) + " that an ISO 9660 directory record can hold");
        }
        SeedIso iso = new SeedIso(recordedAt, files);
        iso.tree(false);
        iso.tree(true);
        iso.header(TERMINATOR, 255);
        files.forEach((name, content) -> iso.image.put(iso.extents.get(name) * SECTOR, content));
        return iso.image.array();
    }

    /** One tree: its volume descriptor (8.4, or 8.5 for Joliet), path tables and root directory. */
    private void tree(boolean joliet) {
        int root = ROOT + (joliet ? 1 : 0);
        int pathTables = PATH_TABLES + (joliet ? 2 : 0);
        int base = header(DESCRIPTOR + (joliet ? 1 : 0), joliet ? 2 : 1);
        text(base + 8, 32, "", joliet); // system identifier
        // The primary descriptor takes d-characters only (7.4.1): uppercase.
        String label = joliet ? NoCloudSeed.VOLUME_LABEL : NoCloudSeed.VOLUME_LABEL.toUpperCase(Locale.ROOT);
        text(base + 40, 32, label, joliet);
        bothEndian32(base + 80, image.capacity() / SECTOR);
        if (joliet) {
            image.put(base + 88, new byte[] {'%', '/', 'E'}); // UCS-2 level 3
        }
        bothEndian16(base + 120, 1); // volume set size
        bothEndian16(base + 124, 1); // volume sequence number
        bothEndian16(base + 128, SECTOR);
        bothEndian32(base + 132, 10); // path table size
        image.order(ByteOrder.LITTLE_ENDIAN).putInt(base + 140, pathTables);
        image.order(ByteOrder.BIG_ENDIAN).putInt(base + 148, pathTables + 1);
        record(base + 156, new byte[] {0}, root, SECTOR, true);
        text(base + 190, 384, "", joliet); // volume set, publisher, data preparer
        text(base + 574, 128, APPLICATION_IDENTIFIER, joliet);
        for (int offset : new int[] {702, 739, 776}) {
            text(base + offset, 37, "", joliet); // copyright, abstract, bibliographic file
        }
        image.put(base + 813, descriptorDate); // creation
        image.put(base + 830, descriptorDate); // modification
        image.put(base + 847, "0".repeat(16).getBytes(StandardCharsets.US_ASCII)); // expiration: not specified
        image.put(base + 864, "0".repeat(16).getBytes(StandardCharsets.US_ASCII)); // effective: not specified
        image.put(base + 881, (byte) 1); // file structure version

        // Path tables (9.4), type L then M, with the root's record alone: identifier 0x00, parent 1.
        for (ByteOrder order : new ByteOrder[] {ByteOrder.LITTLE_ENDIAN, ByteOrder.BIG_ENDIAN}) {
            int table = (pathTables + (order == ByteOrder.BIG_ENDIAN ? 1 : 0)) * SECTOR;
            image.put(table, (byte) 1);
            image.order(order).putInt(table + 2, root);
            image.order(order).putShort(table + 6, (short) 1);
        }

        // The root: records for itself and its parent (itself), then the files in name order, which
        // the NoCloud names keep as level 1 identifiers, so it is also the order 9.3 asks for.
        int offset = root * SECTOR;
        offset += record(offset, new byte[] {0}, root, SECTOR, true);
        offset += record(offset, new byte[] {1}, root, SECTOR, true);
        for (Map.Entry<String, byte[]> file : files.entrySet()) {
            offset += record(offset, identifier(file.getKey(), joliet), extents.get(file.getKey()),
                    file.getValue().length, false);
        }
    }

    /** Type, "CD001" and version 1, which every volume descriptor starts with (8.1); returns its offset. */
    private int header(int sector, int type) {
        int base = sector * SECTOR;
        image.put(base, (byte) type);
        image.put(base + 1, "CD001".getBytes(StandardCharsets.US_ASCII));
        image.put(base + 6, (byte) 1);
        return base;
    }

    /** Joliet keeps the name as given, without the {@code ;1} version its readers strip anyway. */
    private static byte[] identifier(String name, boolean joliet) {
        if (joliet) {
            return name.getBytes(StandardCharsets.UTF_16BE);
        }
        String dCharacters = name.toUpperCase(Locale.ROOT).replace('-', '_');
        String level1 = dCharacters.substring(0, Math.min(8, dCharacters.length())) + ".;1";
        return level1.getBytes(StandardCharsets.US_ASCII);
    }

    /** A directory record (9.1), padded to an even length; returns that length. */
    private int record(int offset, byte[] identifier, int extent, int dataLength, boolean directory) {
        int length = 33 + identifier.length + (identifier.length % 2 == 0 ? 1 : 0);
        image.put(offset, (byte) length);
        bothEndian32(offset + 2, extent);
        bothEndian32(offset + 10, dataLength);
        image.put(offset + 18, recordDate);
        image.put(offset + 25, (byte) (directory ? 2 : 0));
        bothEndian16(offset + 28, 1); // volume sequence number
        image.put(offset + 32, (byte) identifier.length);
        image.put(offset + 33, identifier);
        return length;
    }

    /** A text field padded with spaces: ASCII, or UCS-2 big-endian for Joliet (an odd width ends in 0x00). */
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

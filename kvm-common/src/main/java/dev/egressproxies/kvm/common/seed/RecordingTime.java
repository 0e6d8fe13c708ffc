package dev.egressproxies.kvm.common.seed;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Locale;

/**
 * The two date encodings of ECMA-119, always written in UTC so that the same instant gives the
 * same bytes on every machine whatever its time zone.
 */
final class RecordingTime {
    /** The first year the 7-byte directory record date can hold: it counts years since 1900. */
    static final int FIRST_YEAR = 1900;
    /** The last year the 7-byte directory record date can hold: 1900 plus an unsigned byte. */
    static final int LAST_YEAR = 1900 + 255;

    private static final int VOLUME_DESCRIPTOR_DATE_LENGTH = 17;

    private RecordingTime() {
    }

    /**
     * Encodes a volume descriptor date (ECMA-119 8.4.26.1): sixteen ASCII digits
     * {@code YYYYMMDDhhmmsscc} (cc being hundredths of a second) and a signed byte giving the
     * offset from Greenwich in 15-minute steps, here 0.
     */
    static byte[] volumeDescriptorDate(Instant instant) {
        // Locale.ROOT: some locales format digits with non-ASCII characters.
        ZonedDateTime utc = inUtc(instant);
        String digits = String.format(Locale.ROOT, "%04d%02d%02d%02d%02d%02d%02d",
                utc.getYear(), utc.getMonthValue(), utc.getDayOfMonth(),
                utc.getHour(), utc.getMinute(), utc.getSecond(), utc.getNano() / 10_000_000);
        byte[] date = new byte[VOLUME_DESCRIPTOR_DATE_LENGTH];
        System.arraycopy(digits.getBytes(StandardCharsets.US_ASCII), 0, date, 0, 16);
        return date;
    }

    /**
     * The volume descriptor date meaning "not specified" (ECMA-119 8.4.26.1): sixteen ASCII
     * zeros and a zero offset. Used for the expiration and effective dates, which a seed has no
     * use for.
     */
    static byte[] unspecifiedVolumeDescriptorDate() {
        byte[] date = new byte[VOLUME_DESCRIPTOR_DATE_LENGTH];
        for (int index = 0; index < 16; index++) {
            date[index] = '0';
        }
        return date;
    }

    /**
     * Encodes a directory record date (ECMA-119 9.1.5): years since 1900, month, day, hour,
     * minute, second, one byte each, and the offset from Greenwich in 15-minute steps, here 0.
     */
    static byte[] directoryRecordDate(Instant instant) {
        ZonedDateTime utc = inUtc(instant);
        return new byte[] {
            (byte) (utc.getYear() - FIRST_YEAR),
            (byte) utc.getMonthValue(),
            (byte) utc.getDayOfMonth(),
            (byte) utc.getHour(),
            (byte) utc.getMinute(),
            (byte) utc.getSecond(),
            0,
        };
    }

    /**
     * Checks that both encodings can represent {@code instant}.
     *
     * @throws IllegalArgumentException when its UTC year is outside 1900 to 2155
     */
    static Instant requireRepresentable(Instant instant) {
        int year = inUtc(instant).getYear();
        if (year < FIRST_YEAR || year > LAST_YEAR) {
            throw new IllegalArgumentException("recording time " + instant + " is outside the years "
                    + FIRST_YEAR + " to " + LAST_YEAR + " that an ISO 9660 directory record can hold");
        }
        return instant;
    }

    private static ZonedDateTime inUtc(Instant instant) {
        return instant.atZone(ZoneOffset.UTC);
    }
}

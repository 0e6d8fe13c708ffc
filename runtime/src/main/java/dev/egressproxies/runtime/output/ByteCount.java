package dev.egressproxies.runtime.output;

import java.util.Locale;

/** A count of bytes as people read it: {@code 512 B}, {@code 1.5 KiB}, {@code 2.0 GiB} (binary units). */
public final class ByteCount {
    private static final String[] UNITS = {"KiB", "MiB", "GiB", "TiB"};

    private ByteCount() {
    }

    /** {@code count} in the largest binary unit that keeps it at 1 or more, to one decimal. */
    public static String format(long count) {
        if (count < 1024) {
            return count + " B";
        }
        double value = count;
        int unit = -1;
        while (value >= 1024 && unit < UNITS.length - 1) {
            value /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, "%.1f %s", value, UNITS[unit]);
    }
}

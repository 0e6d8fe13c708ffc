package dev.egressproxies.kvm.common.image;

import java.time.Duration;

/** How a duration reads in a message: {@code 20m}, {@code 1m30s}, {@code 2s}, {@code 250ms}. */
final class DurationText {
    private DurationText() {
    }

    /** {@code duration} in the largest whole units, down to milliseconds. */
    static String of(Duration duration) {
        if (duration.isNegative() || duration.isZero()) {
            return "0s";
        }
        StringBuilder text = new StringBuilder();
        append(text, duration.toHours(), "h");
        append(text, duration.toMinutesPart(), "m");
        append(text, duration.toSecondsPart(), "s");
        append(text, duration.toMillisPart(), "ms");
        return text.length() == 0 ? "<1ms" : text.toString();
    }

    private static void append(StringBuilder text, long amount, String unit) {
        if (amount > 0) {
            text.append(amount).append(unit);
        }
    }
}

package dev.egressproxies.registry;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The human-readable duration syntax of configuration files: whole numbers with units in
 * descending order ({@code 500ms}, {@code 2s}, {@code 5m}, {@code 1h}, {@code 1h30m},
 * {@code 2d}), or ISO-8601 ({@code PT2S}).
 *
 * <p>Units are {@code d} (24 hours), {@code h}, {@code m}, {@code s} and {@code ms}; each appears
 * at most once. {@code 0} alone means zero. Negative durations are rejected, because no setting of
 * the platform means anything by them.
 */
public final class DurationFormat {
    /** What the error messages show as valid examples. */
    static final String EXAMPLES = "500ms, 2s, 5m, 1h, 1h30m or ISO-8601 PT2S";

    private static final Pattern HUMAN = Pattern.compile(
            "(?:(\\d+)d)?(?:(\\d+)h)?(?:(\\d+)m(?!s))?(?:(\\d+)s)?(?:(\\d+)ms)?");

    private DurationFormat() {
    }

    /**
     * Parses a duration.
     *
     * @throws IllegalArgumentException when {@code text} is not a duration, with a message that
     *                                  shows the accepted forms
     */
    public static Duration parse(String text) {
        String compact = text == null ? "" : text.replaceAll("\\s+", "");
        Duration duration = compact.startsWith("P") || compact.startsWith("-P") || compact.startsWith("p")
                ? parseIso(text, compact)
                : parseHuman(text, compact);
        if (duration.isNegative()) {
            throw new IllegalArgumentException("'" + text + "' is negative; a duration must be zero or more");
        }
        return duration;
    }

    /** Formats a duration in the human syntax, for example {@code 1h30m} or {@code 500ms}. */
    public static String format(Duration duration) {
        if (duration.isZero()) {
            return "0s";
        }
        if (duration.isNegative()) {
            return "-" + format(duration.negated());
        }
        StringBuilder text = new StringBuilder();
        append(text, duration.toDaysPart(), "d");
        append(text, duration.toHoursPart(), "h");
        append(text, duration.toMinutesPart(), "m");
        append(text, duration.toSecondsPart(), "s");
        append(text, duration.toMillisPart(), "ms");
        // Below a millisecond: shown in ISO-8601, which keeps the nanoseconds.
        return text.length() == 0 || duration.toNanosPart() % 1_000_000 != 0 ? duration.toString() : text.toString();
    }

    private static void append(StringBuilder text, long amount, String unit) {
        if (amount != 0) {
            text.append(amount).append(unit);
        }
    }

    private static Duration parseIso(String text, String compact) {
        try {
            return Duration.parse(compact);
        } catch (DateTimeParseException invalid) {
            throw notADuration(text);
        }
    }

    private static Duration parseHuman(String text, String compact) {
        if (compact.equals("0")) {
            return Duration.ZERO;
        }
        Matcher matcher = HUMAN.matcher(compact);
        if (compact.isEmpty() || !matcher.matches()) {
            throw notADuration(text);
        }
        try {
            return Duration.ofDays(amount(matcher, 1))
                    .plusHours(amount(matcher, 2))
                    .plusMinutes(amount(matcher, 3))
                    .plusSeconds(amount(matcher, 4))
                    .plusMillis(amount(matcher, 5));
        } catch (ArithmeticException | NumberFormatException tooLarge) {
            throw new IllegalArgumentException("'" + text + "' is too long a duration");
        }
    }

    private static long amount(Matcher matcher, int group) {
        String digits = matcher.group(group);
        return digits == null ? 0 : Long.parseLong(digits);
    }

    private static IllegalArgumentException notADuration(String text) {
        return new IllegalArgumentException("'" + text + "' is not a duration; write a whole number with a unit"
                + " (d, h, m, s, ms), such as " + EXAMPLES);
    }
}

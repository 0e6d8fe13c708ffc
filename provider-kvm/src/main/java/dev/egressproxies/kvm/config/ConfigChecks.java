package dev.egressproxies.kvm.config;

import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The checks the configuration records share; each throws {@link IllegalArgumentException} with a
 * message that starts with the offending component's name, so the registry reports it at that path.
 */
final class ConfigChecks {
    /** Letters, digits, '.', '_' and '-', starting and ending with a letter or digit, at most 63. */
    static final Pattern NAME = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?");

    private ConfigChecks() {
    }

    /** Returns {@code value} when it is non-blank text without whitespace or control characters. */
    static String requireWord(String component, String value, String example) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(component + ": required; for example " + example);
        }
        if (!value.codePoints().allMatch(character -> character > 0x20 && character != 0x7f)) {
            throw new IllegalArgumentException(component + ": '" + value
                    + "' contains spaces or control characters; for example " + example);
        }
        return value;
    }

    /** Returns {@code value}, or {@code fallback} when it is absent; present values must be words. */
    static String wordOrDefault(String component, String value, String fallback) {
        return value == null ? fallback : requireWord(component, value, fallback);
    }

    /** Returns {@code value} when it is an absolute path on the host (it is not checked here). */
    static String requireAbsolutePath(String component, String value, String example) {
        requireWord(component, value, example);
        if (!value.startsWith("/")) {
            throw new IllegalArgumentException(component + ": '" + value + "' is not an absolute path; for example "
                    + example);
        }
        return value;
    }

    /** Returns {@code value} when it is one of {@code allowed}, compared exactly. */
    static String requireOneOf(String component, String value, String... allowed) {
        for (String candidate : allowed) {
            if (candidate.equals(value)) {
                return value;
            }
        }
        throw new IllegalArgumentException(component + ": '" + value + "' is not supported; use one of "
                + String.join(", ", allowed));
    }

    /**
     * Returns what {@code parser} makes of the present {@code value}: the parsers of kvm-common's
     * XML types say which values they accept, so the configuration keeps no second list; a refusal
     * is prefixed with the component's name.
     */
    static <T> T parse(String component, String value, Function<String, T> parser) {
        try {
            return parser.apply(value);
        } catch (IllegalArgumentException refused) {
            throw new IllegalArgumentException(component + ": " + refused.getMessage(), refused);
        }
    }

    /** Returns {@code name} when it matches {@link #NAME}. */
    static String requireName(String component, String name, String example) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException(component + ": required; for example " + example);
        }
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(component + ": '" + name + "' is not a valid name; use 1 to 63"
                    + " letters, digits, '.', '_' or '-', starting and ending with a letter or digit, for example "
                    + example);
        }
        return name;
    }
}

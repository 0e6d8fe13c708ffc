package dev.egressproxies.registry;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Locale;

/**
 * Descriptions of configuration values for error messages ("got a string \"abc\"", "got a list"),
 * so an operator sees what they wrote next to what was expected.
 */
final class JsonValues {
    private static final int MAX_SHOWN_LENGTH = 60;

    private JsonValues() {
    }

    /** Describes a value, for example {@code a string "abc"}, {@code the number 12}, {@code a list}. */
    static String describe(JsonNode value) {
        if (value == null || value.isMissingNode()) {
            return "nothing";
        }
        if (value.isNull()) {
            return "null";
        }
        if (value.isTextual()) {
            return "a string \"" + shorten(value.asText()) + "\"";
        }
        if (value.isNumber()) {
            return "the number " + value.asText();
        }
        if (value.isBoolean()) {
            return "the boolean " + value.asText();
        }
        if (value.isArray()) {
            return "a list";
        }
        if (value.isObject()) {
            return "an object";
        }
        return "a " + value.getNodeType().name().toLowerCase(Locale.ROOT) + " value";
    }

    private static String shorten(String text) {
        return text.length() <= MAX_SHOWN_LENGTH ? text : text.substring(0, MAX_SHOWN_LENGTH) + "...";
    }
}

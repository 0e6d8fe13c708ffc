package dev.egressproxies.registry;

import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.exc.InvalidDefinitionException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import java.lang.reflect.InaccessibleObjectException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The translation of Jackson's binding failures into problems an operator can act on: the path of
 * the offending field relative to the entry, and what is wrong with it in configuration terms.
 */
final class MappingErrors {
    /** A constructor message that starts with a field name: {@code "hosts: at least one host is required"}. */
    private static final Pattern LEADING_FIELD = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*): (.+)", Pattern.DOTALL);
    private static final Pattern SIMPLE_FIELD_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_-]*");

    private MappingErrors() {
    }

    /**
     * A problem located in an entry's settings.
     *
     * @param path   the path below the entry, such as {@code .hosts[0].adress}, or {@code ""} for
     *               the entry itself
     * @param detail what is wrong and, where it helps, what is allowed
     */
    record Explanation(String path, String detail) {
    }

    /**
     * Explains a binding failure.
     *
     * @param failure    what Jackson threw
     * @param settings   the settings that were bound, to show the offending value
     * @param configType the configuration record the settings were bound to
     */
    static Explanation explain(JsonMappingException failure, JsonNode settings, Class<?> configType) {
        List<JsonMappingException.Reference> references = failure.getPath();
        String path = path(references);
        if (failure instanceof UnrecognizedPropertyException unknown) {
            return new Explanation(path, unknownField(unknown.getKnownPropertyIds() == null ? List.of()
                    : unknown.getKnownPropertyIds().stream().map(String::valueOf).toList()));
        }
        if (failure instanceof ValueInstantiationException rejected) {
            return rejectedByRecord(path, rejected);
        }
        if (failure instanceof InvalidFormatException invalid && invalid.getTargetType() == Duration.class) {
            // The duration deserializer's own message already says what is wrong and what to write.
            return new Explanation(path, invalid.getOriginalMessage());
        }
        if (failure instanceof MismatchedInputException mismatch && mismatch.getTargetType() != null) {
            JsonNode actual = valueAt(settings, references);
            String expected = ExpectedTypes.describe(mismatch.getTargetType());
            // Only primitives fail when absent: they cannot say "not set", so they are required.
            return new Explanation(path, actual == null || actual.isMissingNode()
                    ? "missing; this setting is required: set it to " + expected
                    : "expected " + expected + ", got " + JsonValues.describe(actual));
        }
        if (hasCause(failure, InaccessibleObjectException.class)) {
            return new Explanation(path, "the plugin's configuration type " + configType.getName()
                    + " is not open to reflection; the plugin must declare 'opens "
                    + configType.getPackageName() + ";' in its module-info");
        }
        if (failure instanceof InvalidDefinitionException) {
            return new Explanation(path, "the plugin's configuration type " + configType.getName()
                    + " cannot be bound (a bug in the plugin): " + failure.getOriginalMessage());
        }
        return new Explanation(path, failure.getOriginalMessage());
    }

    /** Formats Jackson's path as {@code .hosts[0].adress}. */
    static String path(List<JsonMappingException.Reference> references) {
        StringBuilder path = new StringBuilder();
        for (JsonMappingException.Reference reference : references) {
            if (reference.getFieldName() != null) {
                path.append(fieldSegment(reference.getFieldName()));
            } else if (reference.getIndex() >= 0) {
                path.append('[').append(reference.getIndex()).append(']');
            }
        }
        return path.toString();
    }

    /** The path segment of a field: {@code .name}, or {@code ["odd name"]} when it is not a plain name. */
    static String fieldSegment(String field) {
        return SIMPLE_FIELD_NAME.matcher(field).matches() ? "." + field : "[\"" + field + "\"]";
    }

    /** The detail of an unknown field, listing the fields that are allowed in its place. */
    static String unknownField(Collection<String> knownFields) {
        if (knownFields.isEmpty()) {
            return "unknown field (no fields are allowed here)";
        }
        return "unknown field (known: " + String.join(", ", new TreeSet<>(knownFields)) + ")";
    }

    // The record's compact constructor rejected the values; its message is meant for the operator.
    private static Explanation rejectedByRecord(String path, ValueInstantiationException rejected) {
        Throwable cause = Objects.requireNonNullElse(rejected.getCause(), rejected);
        if (!(cause instanceof IllegalArgumentException) || cause.getMessage() == null) {
            return new Explanation(path, "the values were rejected: " + cause);
        }
        String message = cause.getMessage();
        Matcher leadingField = LEADING_FIELD.matcher(message);
        Class<?> recordType = rejected.getType() == null ? Object.class : rejected.getType().getRawClass();
        if (leadingField.matches() && ExpectedTypes.componentNames(recordType).contains(leadingField.group(1))) {
            return new Explanation(path + "." + leadingField.group(1), leadingField.group(2));
        }
        return new Explanation(path, message);
    }

    private static JsonNode valueAt(JsonNode root, List<JsonMappingException.Reference> references) {
        JsonNode node = root;
        for (JsonMappingException.Reference reference : references) {
            if (node == null) {
                return null;
            }
            node = reference.getFieldName() != null ? node.get(reference.getFieldName()) : node.get(reference.getIndex());
        }
        return node;
    }

    private static boolean hasCause(Throwable failure, Class<? extends Throwable> type) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (type.isInstance(cause)) {
                return true;
            }
        }
        return false;
    }
}

package dev.egressproxies.registry;

import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URI;
import java.net.URL;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Descriptions, in configuration terms, of what a Java type expects ("a whole number", "a list",
 * "one of BIOS, UEFI"), so that a mistyped value is reported in the operator's words, not Java's.
 */
final class ExpectedTypes {
    private static final Set<Class<?>> WHOLE_NUMBERS = Set.of(int.class, Integer.class, long.class, Long.class,
            short.class, Short.class, byte.class, Byte.class, BigInteger.class);
    private static final Set<Class<?>> NUMBERS = Set.of(double.class, Double.class, float.class, Float.class,
            BigDecimal.class, Number.class);

    private ExpectedTypes() {
    }

    /** Describes what a value bound to {@code type} must look like. */
    static String describe(Class<?> type) {
        if (WHOLE_NUMBERS.contains(type)) {
            return "a whole number";
        }
        if (NUMBERS.contains(type)) {
            return "a number";
        }
        if (type == boolean.class || type == Boolean.class) {
            return "true or false";
        }
        if (type == String.class || type == CharSequence.class || type == char.class || type == Character.class) {
            return "a string";
        }
        if (type == Duration.class) {
            return "a duration such as " + DurationFormat.EXAMPLES;
        }
        if (Path.class.isAssignableFrom(type)) {
            return "a file path (a string)";
        }
        if (type == URI.class || type == URL.class) {
            return "a URI (a string)";
        }
        if (type.isEnum()) {
            return "one of " + Arrays.stream(type.getEnumConstants()).map(String::valueOf)
                    .collect(Collectors.joining(", "));
        }
        if (type.isArray() || Collection.class.isAssignableFrom(type)) {
            return "a list";
        }
        if (Map.class.isAssignableFrom(type)) {
            return "an object (names to values)";
        }
        if (type.isRecord()) {
            return "an object with the fields " + String.join(", ", componentNames(type));
        }
        return "an object";
    }

    /** The component names of a record, in declaration order; empty for any other class. */
    static List<String> componentNames(Class<?> type) {
        if (!type.isRecord()) {
            return List.of();
        }
        return Arrays.stream(type.getRecordComponents()).map(RecordComponent::getName).toList();
    }
}

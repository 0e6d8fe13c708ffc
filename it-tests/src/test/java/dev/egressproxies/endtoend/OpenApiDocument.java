package dev.egressproxies.endtoend;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The schemas of serve's OpenAPI document ({@code docs/serve-api.yaml}), checked against JSON the
 * API answered, so the document and the server cannot drift apart unnoticed.
 *
 * <p>Checks the parts of OpenAPI 3.0 that document uses: {@code $ref}, {@code type},
 * {@code nullable}, {@code required}, {@code properties}, {@code items}, {@code enum},
 * {@code pattern}, {@code minimum} and {@code format: date-time}. A property the schema does not
 * name is a violation too: a field the server sends must be documented.
 */
final class OpenApiDocument {
    private static final String SCHEMAS = "#/components/schemas/";

    private final JsonNode document;

    private OpenApiDocument(JsonNode document) {
        this.document = document;
    }

    /** Reads the document of the repository this test runs in. */
    static OpenApiDocument serveApi() {
        Path file = Path.of(System.getProperty("user.dir")).resolveSibling("docs").resolve("serve-api.yaml");
        try {
            return new OpenApiDocument(new YAMLMapper().readTree(file.toFile()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    /** Every way {@code value} departs from the named component schema; empty when it conforms. */
    List<String> violations(String schema, JsonNode value) {
        List<String> found = new ArrayList<>();
        check(schema(SCHEMAS + schema), value, "$", found);
        return found;
    }

    private JsonNode schema(String ref) {
        if (!ref.startsWith(SCHEMAS)) {
            throw new IllegalArgumentException("only component schemas are supported: " + ref);
        }
        JsonNode schema = document.path("components").path("schemas").path(ref.substring(SCHEMAS.length()));
        if (schema.isMissingNode()) {
            throw new IllegalArgumentException("the document has no schema " + ref);
        }
        return schema;
    }

    private void check(JsonNode schema, JsonNode value, String at, List<String> found) {
        if (schema.has("$ref")) {
            check(schema(schema.get("$ref").asText()), value, at, found);
            return;
        }
        if (value == null || value.isNull()) {
            if (!schema.path("nullable").asBoolean(false)) {
                found.add(at + " is null, which the schema does not allow");
            }
            return;
        }
        if (schema.has("enum") && !contains(schema.get("enum"), value)) {
            found.add(at + " is " + value + ", not one of " + schema.get("enum"));
        }
        String type = schema.path("type").asText("");
        switch (type) {
            case "object" -> object(schema, value, at, found);
            case "array" -> {
                if (!value.isArray()) {
                    found.add(at + " is not an array: " + value);
                } else {
                    for (int i = 0; i < value.size(); i++) {
                        check(schema.get("items"), value.get(i), at + "[" + i + "]", found);
                    }
                }
            }
            case "string" -> string(schema, value, at, found);
            case "integer" -> {
                if (!value.isIntegralNumber()) {
                    found.add(at + " is not an integer: " + value);
                } else if (schema.has("minimum") && value.asLong() < schema.get("minimum").asLong()) {
                    found.add(at + " is " + value + ", below the minimum " + schema.get("minimum"));
                }
            }
            case "boolean" -> {
                if (!value.isBoolean()) {
                    found.add(at + " is not a boolean: " + value);
                }
            }
            case "" -> {
                // No type: anything goes.
            }
            default -> throw new IllegalArgumentException("type " + type + " at " + at + " is not supported");
        }
    }

    private void object(JsonNode schema, JsonNode value, String at, List<String> found) {
        if (!value.isObject()) {
            found.add(at + " is not an object: " + value);
            return;
        }
        JsonNode properties = schema.path("properties");
        for (JsonNode required : schema.path("required")) {
            if (!value.has(required.asText())) {
                found.add(at + " lacks the required property " + required.asText());
            }
        }
        for (Iterator<Map.Entry<String, JsonNode>> fields = value.fields(); fields.hasNext(); ) {
            Map.Entry<String, JsonNode> field = fields.next();
            if (properties.has(field.getKey())) {
                check(properties.get(field.getKey()), field.getValue(), at + "." + field.getKey(), found);
            } else {
                found.add(at + "." + field.getKey() + " is not in the document");
            }
        }
    }

    private static void string(JsonNode schema, JsonNode value, String at, List<String> found) {
        if (!value.isTextual()) {
            found.add(at + " is not a string: " + value);
            return;
        }
        String text = value.asText();
        if (schema.has("pattern") && !java.util.regex.Pattern.compile(schema.get("pattern").asText()).matcher(text).find()) {
            found.add(at + " is \"" + text + "\", which does not match " + schema.get("pattern").asText());
        }
        if ("date-time".equals(schema.path("format").asText())) {
            try {
                Instant.parse(text);
            } catch (DateTimeParseException e) {
                found.add(at + " is \"" + text + "\", not an ISO-8601 UTC instant");
            }
        }
    }

    private static boolean contains(JsonNode values, JsonNode value) {
        for (JsonNode candidate : values) {
            if (candidate.equals(value)) {
                return true;
            }
        }
        return false;
    }
}

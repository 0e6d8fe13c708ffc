package dev.egressproxies.fake.state;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The translation between the instances and the state file's JSON, with its version check. Does
 * no I/O.
 *
 * <p>Version 3 records with each instance the provider entry it was created through and the sha256
 * of its user-data. Older versions are still read, and the next change rewrites the file as version
 * 3 with what they lacked marked unknown: version 2, written before the user-data digest was kept,
 * has its instances' {@code userDataSha256} read as {@code ""} (unknown); version 1, written before
 * entries were kept, has in addition its instances read as belonging to no entry (unless someone
 * added the {@code entry} field by hand). An older build refuses a newer file, naming the version,
 * rather than dropping what it does not know.
 *
 * <p>It reads and writes with Jackson's streaming API alone: the layout is one flat record per
 * instance, and the data binding would cost every command that opens the file a few hundred
 * classes loaded in the plugin's own layer.
 */
final class StateFileCodec {
    /** The version of the layout this build writes. */
    static final int VERSION = 3;
    /** The layout before instances recorded their user-data digest, still read. */
    private static final int VERSION_WITHOUT_DIGESTS = 2;
    /** The layout before instances recorded their entry, still read. */
    private static final int VERSION_WITHOUT_ENTRIES = 1;
    /** The fields of an instance, in the order they are written. */
    private static final List<String> FIELDS = List.of("id", "name", "managed", "entry", "uid", "createdAt",
            "startedAt", "stopped", "ip", "machineType", "image", "userDataSha256");
    private static final JsonFactory JSON = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    /** The JSON of a state holding {@code instances}. */
    byte[] encode(Map<String, StoredInstance> instances) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (JsonGenerator json = JSON.createGenerator(bytes).useDefaultPrettyPrinter()) {
            json.writeStartObject();
            json.writeNumberField("version", VERSION);
            json.writeArrayFieldStart("instances");
            for (StoredInstance instance : instances.values()) {
                json.writeStartObject();
                json.writeStringField("id", instance.id());
                json.writeStringField("name", instance.name());
                json.writeBooleanField("managed", instance.managed());
                json.writeStringField("entry", instance.entry());
                json.writeStringField("uid", instance.uid());
                json.writeStringField("createdAt", instance.createdAt() == null ? null : instance.createdAt().toString());
                json.writeStringField("startedAt", instance.startedAt().toString());
                json.writeBooleanField("stopped", instance.stopped());
                json.writeStringField("ip", instance.ip());
                json.writeStringField("machineType", instance.machineType());
                json.writeStringField("image", instance.image());
                json.writeStringField("userDataSha256", instance.userDataSha256());
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeEndObject();
        } catch (IOException impossible) {
            // Written to memory.
            throw new UncheckedIOException(impossible);
        }
        return bytes.toByteArray();
    }

    /**
     * The instances, by provider ID, that {@code json} holds.
     *
     * @throws StateFormatException when it is not JSON this build wrote, saying what is wrong
     */
    Map<String, StoredInstance> decode(byte[] json) throws StateFormatException {
        Map<String, Object> root = parse(json);
        if (!(root.get("version") instanceof Integer read)) {
            throw new StateFormatException("it has no integer 'version' field, so it was not written by the fake provider");
        }
        if (read < VERSION_WITHOUT_ENTRIES || read > VERSION) {
            throw new StateFormatException("it has version " + read + ", but this fake provider reads versions "
                    + VERSION_WITHOUT_ENTRIES + " to " + VERSION + " only");
        }
        for (String field : root.keySet()) {
            if (!field.equals("version") && !field.equals("instances")) {
                throw mismatch("it has an unknown field '" + field + "'");
            }
        }
        if (!root.containsKey("instances")) {
            throw mismatch("it has no 'instances' field");
        }
        if (root.get("instances") == null) {
            throw new StateFormatException("its 'instances' field is null");
        }
        if (!(root.get("instances") instanceof List<?> listed)) {
            throw mismatch("its 'instances' field is not a list");
        }
        Map<String, StoredInstance> instances = new TreeMap<>();
        for (Object fields : listed) {
            if (fields == null) {
                throw new StateFormatException("its 'instances' list has a null entry");
            }
            StoredInstance instance = instance(fields, read);
            if (instances.put(instance.id(), instance) != null) {
                throw new StateFormatException("it lists instance '" + instance.id() + "' twice");
            }
        }
        return instances;
    }

    /**
     * One instance of a document of version {@code version}. What an older version lacked is the
     * empty value, which means unknown: for {@code entry}, that no entry manages it (guessing an owner
     * could hand one entry's instances to another); for {@code userDataSha256}, that nobody can tell
     * which user-data it runs.
     */
    private static StoredInstance instance(Object value, int version) throws StateFormatException {
        if (!(value instanceof Map<?, ?> map)) {
            throw mismatch("an entry of 'instances' is not an object");
        }
        Map<String, Object> fields = new HashMap<>();
        map.forEach((name, field) -> fields.put((String) name, field));
        if (version == VERSION_WITHOUT_ENTRIES) {
            fields.putIfAbsent("entry", "");
        }
        if (version <= VERSION_WITHOUT_DIGESTS) {
            fields.putIfAbsent("userDataSha256", "");
        }
        for (String field : fields.keySet()) {
            if (!FIELDS.contains(field)) {
                throw mismatch("an instance has an unknown field '" + field + "'");
            }
        }
        try {
            return new StoredInstance(text(fields, "id"), text(fields, "name"), flag(fields, "managed"),
                    text(fields, "entry"), text(fields, "uid"), instant(fields, "createdAt"),
                    instant(fields, "startedAt"), flag(fields, "stopped"), text(fields, "ip"),
                    text(fields, "machineType"), text(fields, "image"), text(fields, "userDataSha256"));
        } catch (NullPointerException missing) {
            throw mismatch("instance '" + fields.get("id") + "' has no '" + missing.getMessage() + "'");
        }
    }

    private static String text(Map<String, Object> fields, String name) throws StateFormatException {
        Object value = present(fields, name);
        if (value != null && !(value instanceof String)) {
            throw mismatch("the '" + name + "' of an instance is not text");
        }
        return (String) value;
    }

    private static boolean flag(Map<String, Object> fields, String name) throws StateFormatException {
        if (!(present(fields, name) instanceof Boolean value)) {
            throw mismatch("the '" + name + "' of an instance is not true or false");
        }
        return value;
    }

    private static Instant instant(Map<String, Object> fields, String name) throws StateFormatException {
        String value = text(fields, name);
        try {
            return value == null ? null : Instant.parse(value);
        } catch (DateTimeParseException invalid) {
            throw mismatch("the '" + name + "' of an instance is not an ISO-8601 instant: " + invalid.getMessage());
        }
    }

    private static Object present(Map<String, Object> fields, String name) throws StateFormatException {
        if (!fields.containsKey(name)) {
            throw mismatch("an instance lacks the field '" + name + "'");
        }
        return fields.get(name);
    }

    private static StateFormatException mismatch(String detail) {
        return new StateFormatException("its content does not match the fake provider's layout: " + detail);
    }

    /** The document's root object, its values as maps, lists, strings, numbers, booleans and nulls. */
    private static Map<String, Object> parse(byte[] json) throws StateFormatException {
        try (JsonParser parser = JSON.createParser(json)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new StateFormatException("it does not hold a JSON object");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> root = (Map<String, Object>) value(parser);
            if (parser.nextToken() != null) {
                throw new StateFormatException("it is not valid JSON: content follows the object at line "
                        + parser.currentTokenLocation().getLineNr());
            }
            return root;
        } catch (JsonProcessingException invalid) {
            throw new StateFormatException("it is not valid JSON: " + invalid.getOriginalMessage()
                    + " at line " + invalid.getLocation().getLineNr(), invalid);
        } catch (IOException unreadable) {
            throw new StateFormatException("it is not valid JSON: " + unreadable.getMessage(), unreadable);
        }
    }

    /** The value at the parser's current token, read whole. */
    private static Object value(JsonParser parser) throws IOException {
        switch (parser.currentToken()) {
            case START_OBJECT -> {
                Map<String, Object> object = new HashMap<>();
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    String name = parser.currentName();
                    parser.nextToken();
                    object.put(name, value(parser));
                }
                return object;
            }
            case START_ARRAY -> {
                List<Object> array = new ArrayList<>();
                while (parser.nextToken() != JsonToken.END_ARRAY) {
                    array.add(value(parser));
                }
                return array;
            }
            case VALUE_STRING -> {
                return parser.getText();
            }
            case VALUE_NUMBER_INT -> {
                return parser.getNumberType() == JsonParser.NumberType.INT ? parser.getIntValue() : parser.getNumberValue();
            }
            case VALUE_NUMBER_FLOAT -> {
                return parser.getNumberValue();
            }
            case VALUE_TRUE, VALUE_FALSE -> {
                return parser.getBooleanValue();
            }
            default -> {
                return null;
            }
        }
    }
}

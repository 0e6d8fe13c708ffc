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
 * The translation between a {@link StateDocument} and the state file's JSON, with its version
 * check. Does no I/O.
 *
 * <p>Version 3 records with each instance the provider entry it was created through and the sha256
 * of its user-data. Version 4 adds the {@code operations} list, the operation log of the entries
 * that keep one ({@link FileOperationLog}); a document without records is still written as
 * version 3, so builds that predate the log keep reading the files of entries that keep none, and
 * refuse, naming the version, those that hold a log. Older versions are still read, and the next
 * change rewrites the file as version 3 or 4 with what they lacked marked unknown: version 2,
 * written before the user-data digest was kept, has its instances' {@code userDataSha256} read as
 * {@code ""} (unknown); version 1, written before entries were kept, has in addition its instances
 * read as belonging to no entry (unless someone added the {@code entry} field by hand). An older
 * build refuses a newer file, naming the version, rather than dropping what it does not know.
 *
 * <p>It reads and writes with Jackson's streaming API alone: the layout is one flat record per
 * instance and per operation, and the data binding would cost every command that opens the file a
 * few hundred classes loaded in the plugin's own layer.
 */
final class StateFileCodec {
    /** The version of the layout this build writes when the document holds an operation log. */
    static final int VERSION = 4;
    /** The layout before the operation log, still written when the document holds no log. */
    private static final int VERSION_WITHOUT_LOG = 3;
    /** The layout before instances recorded their user-data digest, still read. */
    private static final int VERSION_WITHOUT_DIGESTS = 2;
    /** The layout before instances recorded their entry, still read. */
    private static final int VERSION_WITHOUT_ENTRIES = 1;
    /** The fields of an instance, in the order they are written. */
    private static final List<String> FIELDS = List.of("id", "name", "managed", "entry", "uid", "createdAt",
            "startedAt", "stopped", "ip", "machineType", "image", "userDataSha256");
    /** The fields of an operation record, in the order they are written. */
    private static final List<String> OPERATION_FIELDS = List.of("seq", "entry", "operation", "instance", "pid",
            "processStart", "host", "started", "ended", "outcome");
    private static final String AN_INSTANCE = "an instance";
    private static final String AN_OPERATION = "an operation record";
    private static final JsonFactory JSON = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    /** The JSON of {@code document}. */
    byte[] encode(StateDocument document) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (JsonGenerator json = JSON.createGenerator(bytes).useDefaultPrettyPrinter()) {
            boolean logged = !document.operations().isEmpty();
            json.writeStartObject();
            json.writeNumberField("version", logged ? VERSION : VERSION_WITHOUT_LOG);
            json.writeArrayFieldStart("instances");
            for (StoredInstance instance : document.instances().values()) {
                json.writeStartObject();
                json.writeStringField("id", instance.id());
                json.writeStringField("name", instance.name());
                json.writeBooleanField("managed", instance.managed());
                json.writeStringField("entry", instance.entry());
                json.writeStringField("uid", instance.uid());
                json.writeStringField("createdAt", text(instance.createdAt()));
                json.writeStringField("startedAt", instance.startedAt().toString());
                json.writeBooleanField("stopped", instance.stopped());
                json.writeStringField("ip", instance.ip());
                json.writeStringField("machineType", instance.machineType());
                json.writeStringField("image", instance.image());
                json.writeStringField("userDataSha256", instance.userDataSha256());
                json.writeEndObject();
            }
            json.writeEndArray();
            if (logged) {
                json.writeArrayFieldStart("operations");
                for (OperationRecord operation : document.operations()) {
                    json.writeStartObject();
                    json.writeNumberField("seq", operation.seq());
                    json.writeStringField("entry", operation.entry());
                    json.writeStringField("operation", operation.operation());
                    json.writeStringField("instance", operation.instance());
                    json.writeNumberField("pid", operation.process().pid());
                    json.writeStringField("processStart", text(operation.process().started()));
                    json.writeStringField("host", operation.process().host());
                    json.writeStringField("started", operation.started().toString());
                    json.writeStringField("ended", text(operation.ended()));
                    json.writeStringField("outcome", operation.outcome());
                    json.writeEndObject();
                }
                json.writeEndArray();
            }
            json.writeEndObject();
        } catch (IOException impossible) {
            // Written to memory.
            throw new UncheckedIOException(impossible);
        }
        return bytes.toByteArray();
    }

    /**
     * The document that {@code json} holds.
     *
     * @throws StateFormatException when it is not JSON this build wrote, saying what is wrong
     */
    StateDocument decode(byte[] json) throws StateFormatException {
        Map<String, Object> root = parse(json);
        if (!(root.get("version") instanceof Integer read)) {
            throw new StateFormatException("it has no integer 'version' field, so it was not written by the fake provider");
        }
        if (read < VERSION_WITHOUT_ENTRIES || read > VERSION) {
            throw new StateFormatException("it has version " + read + ", but this fake provider reads versions "
                    + VERSION_WITHOUT_ENTRIES + " to " + VERSION + " only");
        }
        List<String> parts = read == VERSION ? List.of("version", "instances", "operations")
                : List.of("version", "instances");
        for (String field : root.keySet()) {
            if (!parts.contains(field)) {
                throw mismatch("it has an unknown field '" + field + "'");
            }
        }
        Map<String, StoredInstance> instances = new TreeMap<>();
        for (Object fields : list(root, "instances")) {
            StoredInstance instance = instance(fields, read);
            if (instances.put(instance.id(), instance) != null) {
                throw new StateFormatException("it lists instance '" + instance.id() + "' twice");
            }
        }
        List<OperationRecord> operations = new ArrayList<>();
        if (read == VERSION) {
            for (Object fields : list(root, "operations")) {
                OperationRecord operation = operation(fields);
                if (!operations.isEmpty() && operation.seq() <= operations.get(operations.size() - 1).seq()) {
                    throw new StateFormatException("its 'operations' list has record " + operation.seq()
                            + " after record " + operations.get(operations.size() - 1).seq()
                            + ": the records are kept in increasing 'seq' order");
                }
                operations.add(operation);
            }
        }
        return new StateDocument(instances, operations);
    }

    /** The list in the root's field {@code name}, whose entries are all present. */
    private static List<?> list(Map<String, Object> root, String name) throws StateFormatException {
        if (!root.containsKey(name)) {
            throw mismatch("it has no '" + name + "' field");
        }
        if (root.get(name) == null) {
            throw new StateFormatException("its '" + name + "' field is null");
        }
        if (!(root.get(name) instanceof List<?> listed)) {
            throw mismatch("its '" + name + "' field is not a list");
        }
        if (listed.contains(null)) {
            throw new StateFormatException("its '" + name + "' list has a null entry");
        }
        return listed;
    }

    /**
     * One instance of a document of version {@code version}. What an older version lacked is the
     * empty value, which means unknown: for {@code entry}, that no entry manages it (guessing an owner
     * could hand one entry's instances to another); for {@code userDataSha256}, that nobody can tell
     * which user-data it runs.
     */
    private static StoredInstance instance(Object value, int version) throws StateFormatException {
        Map<String, Object> fields = fields(value, "instances");
        if (version == VERSION_WITHOUT_ENTRIES) {
            fields.putIfAbsent("entry", "");
        }
        if (version <= VERSION_WITHOUT_DIGESTS) {
            fields.putIfAbsent("userDataSha256", "");
        }
        requireKnown(fields, FIELDS, AN_INSTANCE);
        try {
            return new StoredInstance(text(fields, "id", AN_INSTANCE), text(fields, "name", AN_INSTANCE),
                    flag(fields, "managed"), text(fields, "entry", AN_INSTANCE), text(fields, "uid", AN_INSTANCE),
                    instant(fields, "createdAt", AN_INSTANCE), instant(fields, "startedAt", AN_INSTANCE),
                    flag(fields, "stopped"), text(fields, "ip", AN_INSTANCE),
                    text(fields, "machineType", AN_INSTANCE), text(fields, "image", AN_INSTANCE),
                    text(fields, "userDataSha256", AN_INSTANCE));
        } catch (NullPointerException missing) {
            throw mismatch("instance '" + fields.get("id") + "' has no '" + missing.getMessage() + "'");
        }
    }

    /** One record of the operation log; {@code processStart}, {@code ended} and {@code outcome} may be null. */
    private static OperationRecord operation(Object value) throws StateFormatException {
        Map<String, Object> fields = fields(value, "operations");
        requireKnown(fields, OPERATION_FIELDS, AN_OPERATION);
        try {
            return new OperationRecord(number(fields, "seq"), text(fields, "entry", AN_OPERATION),
                    text(fields, "operation", AN_OPERATION), text(fields, "instance", AN_OPERATION),
                    new ProcessIdentity(number(fields, "pid"), instant(fields, "processStart", AN_OPERATION),
                            text(fields, "host", AN_OPERATION)),
                    instant(fields, "started", AN_OPERATION), instant(fields, "ended", AN_OPERATION),
                    text(fields, "outcome", AN_OPERATION));
        } catch (NullPointerException missing) {
            throw mismatch("operation record " + fields.get("seq") + " has no '" + missing.getMessage() + "'");
        } catch (IllegalArgumentException halfEnded) {
            throw mismatch("operation record " + fields.get("seq") + " has only one of 'ended' and 'outcome'");
        }
    }

    /** The fields of an object listed in {@code list}, by name, in a map of their own. */
    private static Map<String, Object> fields(Object value, String list) throws StateFormatException {
        if (!(value instanceof Map<?, ?> map)) {
            throw mismatch("an entry of '" + list + "' is not an object");
        }
        Map<String, Object> fields = new HashMap<>();
        map.forEach((name, field) -> fields.put((String) name, field));
        return fields;
    }

    private static void requireKnown(Map<String, Object> fields, List<String> known, String owner)
            throws StateFormatException {
        for (String field : fields.keySet()) {
            if (!known.contains(field)) {
                throw mismatch(owner + " has an unknown field '" + field + "'");
            }
        }
    }

    private static String text(Instant instant) {
        return instant == null ? null : instant.toString();
    }

    private static String text(Map<String, Object> fields, String name, String owner) throws StateFormatException {
        Object value = present(fields, name, owner);
        if (value != null && !(value instanceof String)) {
            throw mismatch("the '" + name + "' of " + owner + " is not text");
        }
        return (String) value;
    }

    private static boolean flag(Map<String, Object> fields, String name) throws StateFormatException {
        if (!(present(fields, name, AN_INSTANCE) instanceof Boolean value)) {
            throw mismatch("the '" + name + "' of an instance is not true or false");
        }
        return value;
    }

    private static long number(Map<String, Object> fields, String name) throws StateFormatException {
        Object value = present(fields, name, AN_OPERATION);
        if (!(value instanceof Integer) && !(value instanceof Long)) {
            throw mismatch("the '" + name + "' of " + AN_OPERATION + " is not a whole number");
        }
        return ((Number) value).longValue();
    }

    private static Instant instant(Map<String, Object> fields, String name, String owner) throws StateFormatException {
        String value = text(fields, name, owner);
        try {
            return value == null ? null : Instant.parse(value);
        } catch (DateTimeParseException invalid) {
            throw mismatch("the '" + name + "' of " + owner + " is not an ISO-8601 instant: " + invalid.getMessage());
        }
    }

    private static Object present(Map<String, Object> fields, String name, String owner) throws StateFormatException {
        if (!fields.containsKey(name)) {
            throw mismatch(owner + " lacks the field '" + name + "'");
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

package dev.egressproxies.fake.state;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.io.UncheckedIOException;
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
 */
final class StateFileCodec {
    /** The version of the layout this build writes. */
    static final int VERSION = 3;
    /** The layout before instances recorded their user-data digest, still read. */
    private static final int VERSION_WITHOUT_DIGESTS = 2;
    /** The layout before instances recorded their entry, still read. */
    private static final int VERSION_WITHOUT_ENTRIES = 1;

    private final ObjectMapper mapper = JsonMapper.builder()
            .addModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .enable(SerializationFeature.INDENT_OUTPUT)
            // A missing field means the file was damaged or hand-edited: report it, never guess.
            .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    /** The JSON of a state holding {@code instances}. */
    byte[] encode(Map<String, StoredInstance> instances) {
        try {
            return mapper.writeValueAsBytes(new StateDocument(VERSION, List.copyOf(instances.values())));
        } catch (JsonProcessingException impossible) {
            // Only plain records of strings, booleans and instants are written.
            throw new UncheckedIOException(impossible);
        }
    }

    /**
     * The instances, by provider ID, that {@code json} holds.
     *
     * @throws StateFormatException when it is not JSON this build wrote, saying what is wrong
     */
    Map<String, StoredInstance> decode(byte[] json) throws StateFormatException {
        JsonNode root = parse(json);
        JsonNode version = root.get("version");
        if (version == null || !version.isInt()) {
            throw new StateFormatException("it has no integer 'version' field, so it was not written by the fake provider");
        }
        int read = version.intValue();
        if (read < VERSION_WITHOUT_ENTRIES || read > VERSION) {
            throw new StateFormatException("it has version " + read + ", but this fake provider reads versions "
                    + VERSION_WITHOUT_ENTRIES + " to " + VERSION + " only");
        }
        if (read == VERSION_WITHOUT_ENTRIES) {
            markUnknown(root, "entry");
        }
        if (read <= VERSION_WITHOUT_DIGESTS) {
            markUnknown(root, "userDataSha256");
        }
        StateDocument document;
        try {
            document = mapper.treeToValue(root, StateDocument.class);
        } catch (JsonProcessingException | IllegalArgumentException invalid) {
            throw new StateFormatException("its content does not match the fake provider's layout: "
                    + rootCause(invalid).getMessage(), invalid);
        }
        return byId(document);
    }

    /**
     * Gives every instance of an older document that lacks {@code field} the empty value, which means
     * unknown: for {@code entry}, that no entry manages it (guessing an owner could hand one entry's
     * instances to another); for {@code userDataSha256}, that nobody can tell which user-data it runs.
     */
    private static void markUnknown(JsonNode root, String field) {
        JsonNode instances = root.get("instances");
        if (instances == null || !instances.isArray()) {
            return; // The mapping below reports it.
        }
        for (JsonNode instance : instances) {
            if (instance instanceof ObjectNode fields) {
                fields.putIfAbsent(field, TextNode.valueOf(""));
            }
        }
    }

    private JsonNode parse(byte[] json) throws StateFormatException {
        JsonNode root;
        try {
            root = mapper.readTree(json);
        } catch (JsonProcessingException invalid) {
            throw new StateFormatException("it is not valid JSON: " + invalid.getOriginalMessage()
                    + " at line " + invalid.getLocation().getLineNr(), invalid);
        } catch (IOException unreadable) {
            throw new StateFormatException("it is not valid JSON: " + unreadable.getMessage(), unreadable);
        }
        if (root == null || !root.isObject()) {
            throw new StateFormatException("it does not hold a JSON object");
        }
        return root;
    }

    private static Map<String, StoredInstance> byId(StateDocument document) throws StateFormatException {
        if (document.instances() == null) {
            throw new StateFormatException("its 'instances' field is null");
        }
        Map<String, StoredInstance> instances = new TreeMap<>();
        for (StoredInstance instance : document.instances()) {
            if (instance == null) {
                throw new StateFormatException("its 'instances' list has a null entry");
            }
            if (instances.put(instance.id(), instance) != null) {
                throw new StateFormatException("it lists instance '" + instance.id() + "' twice");
            }
        }
        return instances;
    }

    private static Throwable rootCause(Throwable failure) {
        Throwable cause = failure;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return cause;
    }
}

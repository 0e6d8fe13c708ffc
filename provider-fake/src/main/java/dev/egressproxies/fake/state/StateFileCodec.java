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
 * <p>Version 2 records with each instance the provider entry it was created through. Version 1,
 * written before entries were kept, is still read: its instances carry no {@code entry}, so they
 * are read as belonging to no entry (unless someone added the field by hand), and the next change
 * rewrites the file as version 2 with that empty entry kept. An older build refuses version 2
 * files, naming the version, rather than dropping the entries.
 */
final class StateFileCodec {
    /** The version of the layout this build writes. */
    static final int VERSION = 2;
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
        if (version.intValue() == VERSION_WITHOUT_ENTRIES) {
            markEntriesUnknown(root);
        } else if (version.intValue() != VERSION) {
            throw new StateFormatException("it has version " + version.intValue() + ", but this fake provider reads"
                    + " versions " + VERSION_WITHOUT_ENTRIES + " and " + VERSION + " only");
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
     * Gives every instance of a version-1 document that has no {@code entry} the empty one, which
     * means no entry manages it: guessing an owner could hand one entry's instances to another.
     */
    private static void markEntriesUnknown(JsonNode root) {
        JsonNode instances = root.get("instances");
        if (instances == null || !instances.isArray()) {
            return; // The mapping below reports it.
        }
        for (JsonNode instance : instances) {
            if (instance instanceof ObjectNode fields) {
                fields.putIfAbsent("entry", TextNode.valueOf(""));
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

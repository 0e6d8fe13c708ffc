package dev.egressproxies.runtime.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Reads a configuration file (YAML, or JSON, which is YAML too) into a {@link Configuration},
 * checking its outline: a mapping with a {@code providers} list of mappings and nothing else.
 * What each entry's settings mean is the registry's business.
 */
public final class ConfigLoader {
    /** The one top-level key a configuration has. */
    public static final String PROVIDERS = "providers";

    private final ObjectMapper yaml;

    /** Creates a loader that rejects duplicate keys, which YAML would otherwise silently merge. */
    public ConfigLoader() {
        this.yaml = StrictYaml.mapper();
    }

    /** Loads and checks a configuration file. */
    public Configuration load(Path file) {
        ConfigSource source = ConfigSource.file(file);
        JsonNode root;
        try {
            root = yaml.readTree(file.toFile());
        } catch (JsonProcessingException e) {
            throw new ConfigException(source + at(e.getLocation()) + ": not valid YAML or JSON: "
                    + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new ConfigException("cannot read config file " + source + ": " + e.getMessage(), e);
        }
        return outline(source, root);
    }

    /**
     * The built-in default: one {@code fake} entry whose state lives in a file under the user's
     * state directory, so separate runs of the tool see the same instances.
     */
    public static Configuration builtInDefault(Path stateDirectory) {
        ObjectNode entry = JsonNodeFactory.instance.objectNode()
                .put("name", "fake")
                .put("type", "fake")
                .put("stateFile", stateDirectory.resolve("fake").resolve("instances.json").toString());
        return new Configuration(ConfigSource.builtInDefault(), List.of(entry));
    }

    private static Configuration outline(ConfigSource source, JsonNode root) {
        if (root == null || root.isMissingNode() || root.isNull()) {
            throw new ConfigException(source + ": the file is empty; it needs a 'providers' list");
        }
        if (!root.isObject()) {
            throw new ConfigException(source + ": the top level must be a mapping with a 'providers' list");
        }
        for (Iterator<String> names = root.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!PROVIDERS.equals(name)) {
                throw new ConfigException(source + ": " + name + ": unknown field (known: " + PROVIDERS + ")");
            }
        }
        JsonNode providers = root.get(PROVIDERS);
        if (providers == null || providers.isNull()) {
            throw new ConfigException(source + ": providers: missing; list at least one provider entry");
        }
        if (!providers.isArray()) {
            throw new ConfigException(source + ": providers: must be a list of entries");
        }
        List<JsonNode> entries = new ArrayList<>();
        int index = 0;
        for (JsonNode entry : (ArrayNode) providers) {
            if (!entry.isObject()) {
                throw new ConfigException(source + ": providers[" + index + "]: must be a mapping with name and type");
            }
            entries.add(entry);
            index++;
        }
        if (entries.isEmpty()) {
            throw new ConfigException(source + ": providers: is empty; list at least one provider entry");
        }
        return new Configuration(source, entries);
    }

    private static String at(JsonLocation location) {
        return location == null || location.getLineNr() < 1
                ? ""
                : " (line " + location.getLineNr() + ", column " + location.getColumnNr() + ")";
    }
}

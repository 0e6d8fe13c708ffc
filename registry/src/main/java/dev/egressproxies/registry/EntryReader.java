package dev.egressproxies.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The reader of each configured entry's {@code name} and {@code type}: it checks them (present,
 * names unique, types known) and separates them from the entry's settings.
 */
final class EntryReader {
    static final String NAME = "name";
    static final String TYPE = "type";

    /**
     * Entry names end up in error messages, telemetry and (for some backends) volume names, so
     * they are kept to characters that are safe in all of them.
     */
    private static final Pattern VALID_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,62}");

    private final String configPath;
    private final PluginCatalog catalog;
    private final ProblemList problems;

    EntryReader(String configPath, PluginCatalog catalog, ProblemList problems) {
        this.configPath = configPath;
        this.catalog = catalog;
        this.problems = problems;
    }

    /**
     * Reads every entry, reporting what is wrong to the problem list.
     *
     * @return the entries whose name is valid and whose type is known, in configuration order
     */
    List<ConfiguredEntry> read(List<? extends JsonNode> entries) {
        List<ConfiguredEntry> configured = new ArrayList<>();
        Map<String, String> pathsByName = new HashMap<>();
        for (int index = 0; index < entries.size(); index++) {
            String path = configPath + "[" + index + "]";
            JsonNode entry = entries.get(index);
            if (entry == null || !entry.isObject()) {
                problems.add(index, path, "expected an object with 'name' and 'type', got " + JsonValues.describe(entry));
                continue;
            }
            int entryIndex = index;
            Optional<String> name = readName(index, path, entry);
            Optional<Plugin> plugin = readType(index, path, entry, name);
            name.map(valid -> pathsByName.putIfAbsent(valid, path)).ifPresent(firstPath ->
                    problems.add(entryIndex, path + "." + NAME, "duplicate entry name '" + name.get() + "', already used by "
                            + firstPath + "; give every entry a unique name"));
            if (name.isPresent() && plugin.isPresent()) {
                ObjectNode settings = ((ObjectNode) entry).deepCopy();
                settings.remove(List.of(NAME, TYPE));
                configured.add(new ConfiguredEntry(index, path, name.get(), plugin.get(), settings));
            }
        }
        return configured;
    }

    private Optional<String> readName(int index, String path, JsonNode entry) {
        Optional<String> name = readText(index, path, entry, NAME, "give every entry a unique name");
        if (name.isPresent() && !VALID_NAME.matcher(name.get()).matches()) {
            problems.add(index, path + "." + NAME, "'" + name.get() + "' is not a valid entry name; use 1 to 63 letters,"
                    + " digits, '.', '_' or '-', starting with a letter or digit");
            return Optional.empty();
        }
        return name;
    }

    private Optional<Plugin> readType(int index, String path, JsonNode entry, Optional<String> name) {
        Optional<String> type = readText(index, path, entry, TYPE, catalog.isEmpty()
                ? "install a provider plugin and set the type it provides"
                : "set it to one of the " + knownTypes());
        if (type.isEmpty()) {
            return Optional.empty();
        }
        Optional<Plugin> plugin = catalog.find(type.get());
        if (plugin.isEmpty() && !catalog.broken().isEmpty()) {
            return Optional.of(unloaded(type.get()));
        }
        if (plugin.isEmpty()) {
            String detail = "unknown provider type '" + type.get() + "' (" + knownTypes()
                    + "); correct the type or install the plugin that provides it";
            if (name.isPresent()) {
                problems.add(index, name.get(), type.get(), path + "." + TYPE, detail);
            } else {
                problems.add(index, path + "." + TYPE, detail);
            }
        }
        return plugin;
    }

    private Optional<String> readText(int index, String path, JsonNode entry, String field, String remedy) {
        JsonNode value = entry.get(field);
        String fieldPath = path + "." + field;
        if (value == null || value.isNull()) {
            problems.add(index, fieldPath, "missing; " + remedy);
            return Optional.empty();
        }
        if (!value.isTextual()) {
            problems.add(index, fieldPath, "expected a string, got " + JsonValues.describe(value) + "; " + remedy);
            return Optional.empty();
        }
        if (value.asText().isBlank()) {
            problems.add(index, fieldPath, "blank; " + remedy);
            return Optional.empty();
        }
        return Optional.of(value.asText());
    }

    /** The stand-in plugin of a type that may be one of the plugins that failed to load. */
    private Plugin unloaded(String type) {
        String problem = "no loaded plugin provides type '" + type + "', and " + catalog.broken().stream()
                .map(BrokenPlugin::describe).collect(Collectors.joining("; ")) + "; fix that plugin, or correct the"
                + " type (" + knownTypes() + ")";
        String location = catalog.broken().stream().map(broken -> broken.location().toString())
                .collect(Collectors.joining(", "));
        return new Plugin(type, "unknown", "unloaded plugin " + location, new UnloadedPluginFactory(type, problem));
    }

    private String knownTypes() {
        return catalog.isEmpty()
                ? "no provider plugins are installed"
                : "known types: " + String.join(", ", catalog.types());
    }
}

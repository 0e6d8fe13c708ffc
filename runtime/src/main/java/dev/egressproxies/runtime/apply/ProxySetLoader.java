package dev.egressproxies.runtime.apply;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.deser.DeserializationProblemHandler;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.runtime.config.ConfigException;
import dev.egressproxies.runtime.config.StrictYaml;
import dev.egressproxies.runtime.config.UserDataFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Function;

/**
 * Reads a desired-set file and checks all of it before anything is planned, so a bad file
 * changes nothing: unknown fields, missing or mistyped values, unknown entries, duplicate names,
 * unreadable user-data and every request its entry's {@link Provider#validate} rejects (unknown
 * zone, machine type or image) are reported in one error, each with its path in the file.
 *
 * <p>The file is read as a tree and each proxy bound on its own, with a
 * {@link DeserializationProblemHandler} that records unknown fields instead of stopping at the
 * first, so one mistake never hides the next.
 */
public final class ProxySetLoader {
    private static final String EXAMPLE = "proxies:\n    - {name: egress-1, provider: ENTRY, zone: ZONE,"
            + " machineType: TYPE, image: IMAGE}";

    private final ObjectMapper yaml = StrictYaml.mapper();

    /**
     * The top level of a desired-set file.
     *
     * @param providers entries to converge even when no proxy names them (to empty an entry); the
     *                  entries that proxies name are converged anyway
     * @param proxies   every proxy that should exist ({@link DesiredProxy}); managed instances of
     *                  the converged entries that are not listed are deleted
     */
    record Outline(JsonNode providers, JsonNode proxies) {
    }

    /**
     * Loads and checks the file.
     *
     * @param file    the desired-set file
     * @param entries the provider of each configured entry, empty for a name that is not configured
     * @throws ConfigException listing every problem found
     */
    public DesiredState load(Path file, Function<String, Optional<Provider>> entries) {
        return load(file.toString(), read(file), file.toAbsolutePath().getParent(), entries);
    }

    /**
     * Loads and checks a desired set kept elsewhere than in a file (in etcd): a document as
     * {@link #selfContained} makes it, whose user-data is inline.
     *
     * @param source   where the document comes from, for messages
     * @param document the YAML or JSON document
     * @param entries  the provider of each configured entry, empty for a name that is not configured
     * @throws ConfigException listing every problem found
     */
    public DesiredState load(String source, byte[] document, Function<String, Optional<Provider>> entries) {
        return load(source, document, null, entries);
    }

    /**
     * Checks the file, then returns it as one JSON document that needs no other file: each
     * {@code cloudInitFile} is replaced by its content as {@code cloudInit}.
     *
     * @throws ConfigException listing every problem found, as {@link #load(Path, Function)}
     */
    public byte[] selfContained(Path file, Function<String, Optional<Provider>> entries) {
        load(file, entries);
        JsonNode root = parse(file.toString(), read(file));
        Path folder = file.toAbsolutePath().getParent();
        JsonNode proxies = root.get("proxies");
        if (proxies != null && proxies.isArray()) {
            for (JsonNode proxy : proxies) {
                JsonNode userDataFile = proxy.get("cloudInitFile");
                if (proxy instanceof ObjectNode object && userDataFile != null && userDataFile.isTextual()) {
                    object.put("cloudInit", UserDataFile.read(folder.resolve(userDataFile.asText())));
                    object.remove("cloudInitFile");
                }
            }
        }
        try {
            return new ObjectMapper().writeValueAsBytes(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a tree always serialises", e);
        }
    }

    private DesiredState load(String source, byte[] document, Path folder,
                              Function<String, Optional<Provider>> entries) {
        JsonNode root = parse(source, document);
        List<String> problems = new ArrayList<>();
        Outline outline = bind(root, Outline.class, "", problems);
        Set<String> converged = new LinkedHashSet<>();
        List<ResolvedProxy> resolved = new ArrayList<>();
        if (outline != null) {
            readEntryNames(outline.providers(), entries, converged, problems);
            readProxies(folder, outline.proxies(), entries, converged, resolved, problems);
        }
        if (!problems.isEmpty()) {
            throw new ConfigException(source + ": " + (problems.size() == 1 ? "1 problem" : problems.size() + " problems")
                    + ", nothing was changed:\n  " + String.join("\n  ", problems));
        }
        return new DesiredState(converged, resolved);
    }

    private static byte[] read(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new ConfigException("no such file: " + file, e);
        } catch (IOException e) {
            throw new ConfigException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    private JsonNode parse(String file, byte[] document) {
        JsonNode root;
        try (JsonParser parser = yaml.createParser(document)) {
            // Read one document, then look for another ourselves: Jackson's trailing-token error
            // would name its own types and settings instead of YAML documents.
            root = yaml.reader().without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).readTree(parser);
            if (parser.nextToken() != null) {
                throw new ConfigException(file + at(parser.currentTokenLocation()) + ": a second YAML document starts here;"
                        + " a desired set is one document: put every proxy into its one 'proxies' list");
            }
        } catch (JsonProcessingException e) {
            throw new ConfigException(file + at(e.getLocation()) + ": not valid YAML: " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new ConfigException("cannot read " + file + ": " + e.getMessage(), e);
        }
        if (root == null || root.isMissingNode() || root.isNull()) {
            throw new ConfigException(file + ": the file is empty; a desired set lists its proxies, like\n  " + EXAMPLE);
        }
        if (!root.isObject()) {
            throw new ConfigException(file + ": the top level is " + describe(root) + "; a desired set is a mapping"
                    + " with a 'proxies' list, like\n  " + EXAMPLE);
        }
        JsonNode providers = root.get("providers");
        if (providers != null && providers.isArray() && providers.size() > 0 && providers.get(0).isObject()) {
            throw new ConfigException(file + ": this is an egressctl config file (its 'providers' list holds provider"
                    + " entries); pass it with --config, and to apply -f a desired set that lists proxies, like\n  "
                    + EXAMPLE);
        }
        return root;
    }

    private static void readEntryNames(JsonNode names, Function<String, Optional<Provider>> entries,
                                       Set<String> converged, List<String> problems) {
        if (names == null || names.isNull()) {
            return;
        }
        if (!names.isArray()) {
            problems.add("providers: expected a list of entry names, got " + describe(names));
            return;
        }
        for (int index = 0; index < names.size(); index++) {
            JsonNode name = names.get(index);
            String path = "providers[" + index + "]";
            if (!name.isValueNode() || name.isNull()) {
                problems.add(path + ": expected an entry name, got " + describe(name));
            } else if (entries.apply(name.asText()).isEmpty()) {
                problems.add(path + ": " + unknownEntry(name.asText()));
            } else {
                converged.add(name.asText());
            }
        }
    }

    private void readProxies(Path folder, JsonNode proxies, Function<String, Optional<Provider>> entries,
                             Set<String> converged, List<ResolvedProxy> resolved, List<String> problems) {
        if (proxies == null || proxies.isNull()) {
            return;
        }
        if (!proxies.isArray()) {
            problems.add("proxies: expected a list of proxies, got " + describe(proxies));
            return;
        }
        Set<String> seen = new HashSet<>();
        for (int index = 0; index < proxies.size(); index++) {
            String path = "proxies[" + index + "]";
            JsonNode node = proxies.get(index);
            if (!node.isObject()) {
                problems.add(path + ": expected a mapping with name, provider, machineType and image, got "
                        + describe(node));
                continue;
            }
            int before = problems.size();
            DesiredProxy proxy = bind(node, DesiredProxy.class, path, problems);
            if (proxy == null) {
                continue;
            }
            require(proxy.name(), path + ".name", problems);
            require(proxy.machineType(), path + ".machineType", problems);
            require(proxy.image(), path + ".image", problems);
            Optional<Provider> provider = Optional.empty();
            if (require(proxy.provider(), path + ".provider", problems)) {
                provider = entries.apply(proxy.provider());
                if (provider.isEmpty()) {
                    problems.add(path + ".provider: " + unknownEntry(proxy.provider()));
                }
            }
            if (proxy.name() != null && proxy.provider() != null && !seen.add(proxy.provider() + "/" + proxy.name())) {
                problems.add(path + ".name: '" + proxy.name() + "' is listed twice for provider entry '"
                        + proxy.provider() + "'");
            }
            String cloudInit = cloudInit(folder, proxy, path, problems);
            if (proxy.name() == null || proxy.name().isBlank()) {
                continue;
            }
            String uid = proxy.uid() == null || proxy.uid().isBlank() ? UUID.randomUUID().toString() : proxy.uid();
            CreateRequest request = new CreateRequest(proxy.name(), uid,
                    new Placement(proxy.zone(), proxy.machineType(), proxy.image()), cloudInit);
            try {
                request.validate(proxy.provider());
                // The entry's own checks only for an otherwise sound proxy: they would repeat its problems.
                if (problems.size() == before && provider.isPresent()) {
                    provider.get().validate(request);
                }
            } catch (ProviderException invalid) {
                problems.add(path + ": " + invalid.detail());
            }
            if (problems.size() == before) {
                resolved.add(new ResolvedProxy(proxy.provider(), request));
                converged.add(proxy.provider());
            }
        }
    }

    /**
     * Binds a node, recording unknown fields and mistyped values as problems.
     *
     * @return the value, or null when it could not be bound at all
     */
    private <T> T bind(JsonNode node, Class<T> type, String path, List<String> problems) {
        UnknownFieldRecorder unknown = new UnknownFieldRecorder(path);
        ObjectReader reader = yaml.readerFor(type).withHandler(unknown);
        try {
            T value = reader.readValue(node);
            problems.addAll(unknown.problems);
            return value;
        } catch (JsonMappingException e) {
            problems.addAll(unknown.problems);
            String at = join(path, ProxySetLoader.path(e));
            JsonNode value = valueAt(node, e);
            problems.add(at + ": " + (value == null ? e.getOriginalMessage()
                    : "expected a single value, got " + describe(value)));
            return null;
        } catch (IOException e) {
            problems.add((path.isEmpty() ? "(top level)" : path) + ": " + e.getMessage());
            return null;
        }
    }

    /** The proxy's user-data; a file is read relative to the set's folder, and a set without one (etcd's) has none. */
    private static String cloudInit(Path folder, DesiredProxy proxy, String path, List<String> problems) {
        if (proxy.cloudInit() != null && proxy.cloudInitFile() != null) {
            problems.add(path + ": give cloudInit or cloudInitFile, not both");
            return "";
        }
        if (proxy.cloudInitFile() == null) {
            return proxy.cloudInit() == null ? "" : proxy.cloudInit();
        }
        try {
            if (folder == null) {
                problems.add(path + ".cloudInitFile: a desired set kept in etcd holds its user-data inline; write it"
                        + " with egressctl apply -f FILE --etcd ..., which puts each cloudInitFile's content in it");
                return "";
            }
            return UserDataFile.read(folder.resolve(proxy.cloudInitFile()));
        } catch (ConfigException unreadable) {
            problems.add(path + ".cloudInitFile: " + unreadable.getMessage());
            return "";
        }
    }

    private static boolean require(String value, String path, List<String> problems) {
        if (value == null || value.isBlank()) {
            problems.add(path + ": missing");
            return false;
        }
        return true;
    }

    private static String unknownEntry(String name) {
        return "no provider entry named '" + name + "' is configured (see egressctl providers)";
    }

    private static String describe(JsonNode node) {
        if (node.isArray()) {
            return "a list";
        }
        if (node.isObject()) {
            return "a mapping";
        }
        return node.isNull() ? "nothing" : "'" + node.asText() + "'";
    }

    private static String at(JsonLocation location) {
        return location == null || location.getLineNr() < 1 ? "" : " (line " + location.getLineNr() + ")";
    }

    private static String join(String prefix, String path) {
        if (path.isEmpty()) {
            return prefix.isEmpty() ? "(top level)" : prefix;
        }
        return prefix.isEmpty() ? path : prefix + "." + path;
    }

    /** Renders Jackson's location below the bound node as {@code zone} or {@code a[1].b}. */
    static String path(JsonMappingException e) {
        StringBuilder path = new StringBuilder();
        for (JsonMappingException.Reference reference : e.getPath()) {
            if (reference.getIndex() >= 0) {
                path.append('[').append(reference.getIndex()).append(']');
            } else if (reference.getFieldName() != null) {
                if (path.length() > 0) {
                    path.append('.');
                }
                path.append(reference.getFieldName());
            }
        }
        return path.toString();
    }

    private static JsonNode valueAt(JsonNode node, JsonMappingException e) {
        JsonNode value = node;
        for (JsonMappingException.Reference reference : e.getPath()) {
            value = reference.getFieldName() != null ? value.get(reference.getFieldName()) : value.get(reference.getIndex());
            if (value == null) {
                return null;
            }
        }
        return value == node ? null : value;
    }

    /**
     * Records each unknown field with its path and the fields known there, and skips its value.
     * The records bound here have only scalar or tree fields, so an unknown field is always one
     * level below the node being bound.
     */
    private static final class UnknownFieldRecorder extends DeserializationProblemHandler {
        private final String prefix;
        private final List<String> problems = new ArrayList<>();

        UnknownFieldRecorder(String prefix) {
            this.prefix = prefix;
        }

        @Override
        public boolean handleUnknownProperty(DeserializationContext context, JsonParser parser,
                                             JsonDeserializer<?> deserializer, Object beanOrClass, String propertyName)
                throws IOException {
            Set<String> known = new TreeSet<>();
            deserializer.getKnownPropertyNames().forEach(name -> known.add(String.valueOf(name)));
            problems.add(join(prefix, propertyName) + ": unknown field (known: " + String.join(", ", known) + ")");
            parser.skipChildren();
            return true;
        }
    }
}

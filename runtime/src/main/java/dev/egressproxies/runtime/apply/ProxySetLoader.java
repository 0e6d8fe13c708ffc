package dev.egressproxies.runtime.apply;

import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.runtime.config.ConfigException;
import dev.egressproxies.runtime.config.StrictYaml;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Reads a desired-set file and checks every proxy in it before anything is planned, so a bad
 * file changes nothing: unknown fields, missing values, unknown entries, duplicate names and
 * invalid requests are all reported at once, each with its path in the file.
 */
public final class ProxySetLoader {
    private final ObjectMapper yaml = StrictYaml.mapper();

    /**
     * Loads and checks the file.
     *
     * @param file       the desired-set file
     * @param knownEntry whether a provider entry of that name is configured
     * @throws ConfigException listing every problem found
     */
    public DesiredState load(Path file, Predicate<String> knownEntry) {
        ProxySet set = parse(file);
        List<String> problems = new ArrayList<>();
        List<ResolvedProxy> resolved = new ArrayList<>();
        Set<String> entries = new LinkedHashSet<>();
        for (int index = 0; index < set.providers().size(); index++) {
            String entry = set.providers().get(index);
            if (entry == null || !knownEntry.test(entry)) {
                problems.add("providers[" + index + "]: no provider entry named '" + entry
                        + "' is configured (see egressctl providers)");
            } else {
                entries.add(entry);
            }
        }
        Set<String> seen = new HashSet<>();
        for (int index = 0; index < set.proxies().size(); index++) {
            DesiredProxy proxy = set.proxies().get(index);
            String path = "proxies[" + index + "]";
            if (proxy == null) {
                problems.add(path + ": is empty; give at least name and provider");
                continue;
            }
            int before = problems.size();
            require(proxy.name(), path + ".name", problems);
            require(proxy.provider(), path + ".provider", problems);
            if (proxy.provider() != null && !proxy.provider().isBlank() && !knownEntry.test(proxy.provider())) {
                problems.add(path + ".provider: no provider entry named '" + proxy.provider()
                        + "' is configured (see egressctl providers)");
            }
            if (proxy.name() != null && proxy.provider() != null && !seen.add(proxy.provider() + "/" + proxy.name())) {
                problems.add(path + ".name: '" + proxy.name() + "' is listed twice for provider entry '"
                        + proxy.provider() + "'");
            }
            String cloudInit = cloudInit(file, proxy, path, problems);
            if (problems.size() > before) {
                continue;
            }
            String uid = proxy.uid() == null || proxy.uid().isBlank() ? UUID.randomUUID().toString() : proxy.uid();
            CreateRequest request = new CreateRequest(proxy.name(), uid,
                    new Placement(proxy.zone(), proxy.machineType(), proxy.image()), cloudInit);
            try {
                request.validate(proxy.provider());
                resolved.add(new ResolvedProxy(proxy.provider(), request));
                entries.add(proxy.provider());
            } catch (ProviderException invalid) {
                problems.add(path + ": " + invalid.detail());
            }
        }
        if (!problems.isEmpty()) {
            throw new ConfigException(file + ": " + problems.size() + " problem(s), nothing was changed:\n  "
                    + String.join("\n  ", problems));
        }
        return new DesiredState(entries, resolved);
    }

    private ProxySet parse(Path file) {
        try {
            ProxySet set = yaml.readValue(file.toFile(), ProxySet.class);
            if (set == null) {
                throw new ConfigException(file + ": the file is empty; it needs a 'proxies' list");
            }
            return set;
        } catch (UnrecognizedPropertyException e) {
            String known = e.getKnownPropertyIds().stream().map(Object::toString).sorted()
                    .collect(Collectors.joining(", "));
            throw new ConfigException(file + ": " + path(e) + ": unknown field (known: " + known + ")", e);
        } catch (JsonMappingException e) {
            throw new ConfigException(file + ": " + path(e) + ": " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new ConfigException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    private static String cloudInit(Path file, DesiredProxy proxy, String path, List<String> problems) {
        if (proxy.cloudInit() != null && proxy.cloudInitFile() != null) {
            problems.add(path + ": give cloudInit or cloudInitFile, not both");
            return "";
        }
        if (proxy.cloudInitFile() == null) {
            return proxy.cloudInit() == null ? "" : proxy.cloudInit();
        }
        Path userData = file.toAbsolutePath().getParent().resolve(proxy.cloudInitFile());
        try {
            return Files.readString(userData, StandardCharsets.UTF_8);
        } catch (IOException e) {
            problems.add(path + ".cloudInitFile: cannot read " + userData + ": " + e.getMessage());
            return "";
        }
    }

    private static void require(String value, String path, List<String> problems) {
        if (value == null || value.isBlank()) {
            problems.add(path + ": missing");
        }
    }

    /** Renders Jackson's location as {@code proxies[1].zone}. */
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
        return path.length() == 0 ? "(top level)" : path.toString();
    }
}

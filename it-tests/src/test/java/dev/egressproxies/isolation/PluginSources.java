package dev.egressproxies.isolation;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The Java sources of a test plugin: its factory, configuration record and file-backed backend. */
final class PluginSources {
    private PluginSources() {
    }

    /** Writes the sources of package {@code pkg} (in folder {@code folder}), of type {@code type}. */
    static void write(Path folder, String pkg, String type, String libraryCall, String version)
            throws IOException {
        Files.writeString(folder.resolve("Factory.java"), FACTORY.replace("PKG", pkg).replace("TYPE", type)
                .replace("VERSION", version));
        Files.writeString(folder.resolve("Config.java"), CONFIG.replace("PKG", pkg));
        Files.writeString(folder.resolve("Backend.java"), BACKEND.replace("PKG", pkg)
                .replace("LIBRARY_CALL", libraryCall));
    }

    private static final String FACTORY = """
            package PKG;

            import dev.egressproxies.api.spi.ProviderContext;
            import dev.egressproxies.api.spi.ProviderFactory;

            public final class Factory implements ProviderFactory<Config> {
                public Factory() {
                }

                @Override
                public String type() {
                    return "TYPE";
                }

                @Override
                public String version() {
                    return VERSION;
                }

                @Override
                public Class<Config> configType() {
                    return Config.class;
                }

                @Override
                public Backend create(String entryName, Config config, ProviderContext context) {
                    return new Backend(entryName, config, context.clock(),
                            context.stateDirectory().resolve(entryName + ".tsv"));
                }
            }
            """;

    private static final String CONFIG = """
            package PKG;

            import java.util.Set;

            public record Config(String zone, Set<String> machineTypes, Set<String> images) {
                public Config {
                    if (zone == null || zone.isBlank()) {
                        throw new IllegalArgumentException("zone: required");
                    }
                    if (machineTypes == null || machineTypes.isEmpty()) {
                        throw new IllegalArgumentException("machineTypes: list at least one");
                    }
                    if (images == null || images.isEmpty()) {
                        throw new IllegalArgumentException("images: list at least one");
                    }
                    machineTypes = Set.copyOf(machineTypes);
                    images = Set.copyOf(images);
                }
            }
            """;

    private static final String BACKEND = """
            package PKG;

            import dev.egressproxies.api.CreateRequest;
            import dev.egressproxies.api.Deadline;
            import dev.egressproxies.api.ErrorKind;
            import dev.egressproxies.api.Instance;
            import dev.egressproxies.api.InstanceState;
            import dev.egressproxies.api.Operation;
            import dev.egressproxies.api.Placement;
            import dev.egressproxies.api.Provider;
            import dev.egressproxies.api.ProviderException;
            import java.io.IOException;
            import java.io.UncheckedIOException;
            import java.nio.file.Files;
            import java.nio.file.Path;
            import java.time.Clock;
            import java.time.Instant;
            import java.util.ArrayList;
            import java.util.HexFormat;
            import java.util.LinkedHashMap;
            import java.util.List;
            import java.util.Map;
            import java.util.concurrent.ThreadLocalRandom;
            import java.util.regex.Pattern;

            public final class Backend implements Provider {
                private static final Pattern ID = Pattern.compile("i-[0-9a-f]{16}");
                private final String entry;
                private final Config config;
                private final Clock clock;
                private final Path state;

                Backend(String entry, Config config, Clock clock, Path state) {
                    this.entry = entry;
                    this.config = config;
                    this.clock = clock;
                    this.state = state;
                }

                record Stored(String id, String name, String uid, Instant createdAt, String ip, Placement placement,
                              String sha256) {
                    Instance describe() {
                        return new Instance(id, name, ip, InstanceState.RUNNING, uid, createdAt, placement, sha256);
                    }
                }

                /** Calls what only this plugin's bundled library version has. */
                static boolean library(String name) throws Exception {
                    return LIBRARY_CALL;
                }

                @Override
                public synchronized String create(CreateRequest request, Deadline deadline) {
                    deadline.check(Operation.CREATE, entry, request.name());
                    validate(request);
                    try {
                        if (!library(request.name())) {
                            throw new IllegalStateException("the bundled library gave a wrong answer");
                        }
                    } catch (Exception failure) {
                        throw new ProviderException(ErrorKind.PERMANENT, Operation.CREATE, entry, request.name(),
                                "the bundled library failed: " + failure, failure);
                    }
                    Map<String, Stored> instances = load();
                    for (Stored existing : instances.values()) {
                        if (existing.name().equals(request.name())) {
                            return existing.id();
                        }
                    }
                    String id;
                    do {
                        id = "i-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
                    } while (instances.containsKey(id));
                    Placement placement = request.placement();
                    instances.put(id, new Stored(id, request.name(), request.uid(), clock.instant(),
                            "192.0.2." + (instances.size() % 254 + 1),
                            new Placement(config.zone(), placement.machineType(), placement.image()),
                            request.cloudInitSha256()));
                    save(instances);
                    return id;
                }

                @Override
                public void validate(CreateRequest request) {
                    request.validate(entry);
                    Placement placement = request.placement();
                    if (!placement.zone().isEmpty() && !placement.zone().equals(config.zone())) {
                        throw refused(request, "zone '" + placement.zone() + "' does not exist; use '" + config.zone()
                                + "'");
                    }
                    if (!config.machineTypes().contains(placement.machineType())) {
                        throw refused(request, "machine type '" + placement.machineType() + "' does not exist");
                    }
                    if (!config.images().contains(placement.image())) {
                        throw refused(request, "image '" + placement.image() + "' does not exist");
                    }
                }

                @Override
                public synchronized Instance get(String id, Deadline deadline) {
                    deadline.check(Operation.GET, entry, id);
                    requireWellFormed(id, Operation.GET);
                    Stored found = load().get(id);
                    if (found == null) {
                        throw new ProviderException(ErrorKind.NOT_FOUND, Operation.GET, entry, id,
                                "no such instance; it was deleted or never created");
                    }
                    return found.describe();
                }

                @Override
                public synchronized void delete(String id, Deadline deadline) {
                    deadline.check(Operation.DELETE, entry, id);
                    requireWellFormed(id, Operation.DELETE);
                    Map<String, Stored> instances = load();
                    if (instances.remove(id) != null) {
                        save(instances);
                    }
                }

                @Override
                public synchronized List<Instance> listManaged(Deadline deadline) {
                    deadline.check(Operation.LIST_MANAGED, entry, "");
                    return load().values().stream().map(Stored::describe).toList();
                }

                private ProviderException refused(CreateRequest request, String detail) {
                    return new ProviderException(ErrorKind.PERMANENT, Operation.CREATE, entry, request.name(), detail);
                }

                private void requireWellFormed(String id, Operation operation) {
                    if (id == null || !ID.matcher(id).matches()) {
                        throw new ProviderException(ErrorKind.PERMANENT, operation, entry, id,
                                "'" + id + "' is not an ID of this backend; pass the ID create returned");
                    }
                }

                private Map<String, Stored> load() {
                    Map<String, Stored> instances = new LinkedHashMap<>();
                    if (!Files.exists(state)) {
                        return instances;
                    }
                    try {
                        for (String line : Files.readAllLines(state)) {
                            String[] f = line.split("\\t", -1);
                            instances.put(f[0], new Stored(f[0], f[1], f[2], Instant.parse(f[3]), f[4],
                                    new Placement(f[5], f[6], f[7]), f[8]));
                        }
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                    return instances;
                }

                private void save(Map<String, Stored> instances) {
                    List<String> lines = new ArrayList<>();
                    for (Stored s : instances.values()) {
                        lines.add(String.join("\\t", s.id(), s.name(), s.uid(), s.createdAt().toString(), s.ip(),
                                s.placement().zone(), s.placement().machineType(), s.placement().image(), s.sha256()));
                    }
                    try {
                        Files.createDirectories(state.getParent());
                        Files.write(state, lines);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            }
            """;
}

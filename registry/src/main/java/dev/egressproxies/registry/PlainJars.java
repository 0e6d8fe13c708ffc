package dev.egressproxies.registry;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReader;
import java.lang.module.ModuleReference;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The plain jars of one plugin, each turned from an automatic module into an open module of the
 * same name, version and packages, exporting them all, that reads only the JDK's modules, the
 * modules the platform shares ({@link PluginFolders#SHARED}) and the plugin's other modules.
 *
 * <p>An automatic module reads every module of the parent layers, so a plain jar in a plugin would
 * read the platform's libraries: one named like a jar of the plugin (Jackson) makes the layer fail,
 * and one holding a package of the plugin's makes it fail too. The rewritten module keeps what a
 * library relies on: reflection on all of it, its {@code META-INF/services} providers, and
 * {@link java.util.ServiceLoader} lookups of any service type of its own or of the JDK (it
 * {@code uses} them all). Reads among the plugin's modules are added when the layer is made
 * ({@link #addReads}), since declaring them could form cycles, which no configuration may hold.
 */
final class PlainJars {
    /** Service types of the JDK a library may look up: those its boot-layer modules use or provide, if exported. */
    private static final Set<String> JDK_SERVICES = jdkServices();

    private final Map<String, ModuleReference> references;
    private final Set<String> rewritten;

    private PlainJars(Map<String, ModuleReference> references, Set<String> rewritten) {
        this.references = references;
        this.rewritten = rewritten;
    }

    /** The modules of one plugin, its plain jars rewritten; {@code boot} is the layer the plugin's resolves against. */
    static PlainJars of(Set<ModuleReference> modules, ModuleLayer boot) {
        Map<String, ModuleReference> byName = new LinkedHashMap<>();
        modules.stream().sorted((a, b) -> a.descriptor().name().compareTo(b.descriptor().name()))
                .forEach(module -> byName.put(module.descriptor().name(), module));
        Set<String> automatic = byName.values().stream().map(ModuleReference::descriptor)
                .filter(ModuleDescriptor::isAutomatic).map(ModuleDescriptor::name).collect(Collectors.toSet());
        if (automatic.isEmpty()) {
            return new PlainJars(byName, Set.of());
        }
        Map<String, String> packageOwners = new HashMap<>();
        byName.values().forEach(module -> module.descriptor().packages()
                .forEach(pn -> packageOwners.put(pn, module.descriptor().name())));
        Set<String> readFromBoot = new TreeSet<>();
        for (Module module : boot.modules()) {
            String name = module.getName();
            if ((PluginFolders.isJdk(name) || PluginFolders.SHARED.contains(name)) && !byName.containsKey(name)
                    && !name.equals("java.base")) {
                readFromBoot.add(name);
            }
        }
        Set<String> readablePackages = new HashSet<>();
        for (Module module : boot.modules()) {
            if (readFromBoot.contains(module.getName()) || module.getName().equals("java.base")) {
                ModuleDescriptor descriptor = module.getDescriptor();
                if (descriptor.isAutomatic()) {
                    readablePackages.addAll(descriptor.packages());
                }
                for (ModuleDescriptor.Exports export : descriptor.exports()) {
                    if (!export.isQualified()) {
                        readablePackages.add(export.source());
                    }
                }
            }
        }
        // The plugin's own requires, for the cycle check of the ones added below.
        Map<String, Set<String>> edges = new HashMap<>();
        byName.values().forEach(module -> edges.put(module.descriptor().name(), module.descriptor().requires().stream()
                .map(ModuleDescriptor.Requires::name).filter(byName::containsKey)
                .collect(Collectors.toCollection(HashSet::new))));
        Map<String, ModuleReference> references = new LinkedHashMap<>(byName);
        for (String name : new TreeSet<>(automatic)) {
            ModuleReference original = byName.get(name);
            references.put(name, new Rewritten(rewrite(original, byName, packageOwners, readFromBoot,
                    readablePackages, edges), original));
        }
        return new PlainJars(references, automatic);
    }

    /** A finder of the plugin's modules, the rewritten ones in place of the plain jars. */
    ModuleFinder finder() {
        return new ModuleFinder() {
            private final Set<ModuleReference> all = Set.copyOf(references.values());

            @Override
            public Optional<ModuleReference> find(String name) {
                return Optional.ofNullable(references.get(name));
            }

            @Override
            public Set<ModuleReference> findAll() {
                return all;
            }
        };
    }

    /**
     * Makes each rewritten module read every other module of the plugin, and each of the plugin's
     * own modules read the rewritten ones, as they did the automatic modules these were.
     */
    void addReads(ModuleLayer.Controller controller) {
        if (rewritten.isEmpty()) {
            return;
        }
        Set<Module> modules = controller.layer().modules();
        for (Module source : modules) {
            for (Module target : modules) {
                if (source != target && (rewritten.contains(source.getName()) || rewritten.contains(target.getName()))) {
                    controller.addReads(source, target);
                }
            }
        }
    }

    private static ModuleDescriptor rewrite(ModuleReference original, Map<String, ModuleReference> plugin,
                                            Map<String, String> packageOwners, Set<String> readFromBoot,
                                            Set<String> readablePackages, Map<String, Set<String>> edges) {
        ModuleDescriptor plain = original.descriptor();
        String name = plain.name();
        ModuleDescriptor.Builder builder = ModuleDescriptor.newOpenModule(name).packages(plain.packages());
        plain.version().ifPresent(builder::version);
        plain.mainClass().ifPresent(builder::mainClass);
        plain.packages().forEach(builder::exports);
        readFromBoot.forEach(builder::requires);
        Set<String> required = new HashSet<>();
        // A service type of another jar of the plugin needs that jar read at resolution: required
        // where that forms no cycle, else the provider is left out (as the JDK would refuse it).
        for (ModuleDescriptor.Provides provides : plain.provides()) {
            String owner = packageOwners.get(packageOf(provides.service()));
            if (owner != null && !owner.equals(name) && !required.contains(owner)) {
                if (reaches(edges, owner, name)) {
                    continue;
                }
                required.add(owner);
                edges.get(name).add(owner);
                builder.requires(owner);
            } else if (owner == null && !readablePackages.contains(packageOf(provides.service()))) {
                continue;
            }
            builder.provides(provides);
        }
        Set<String> uses = new HashSet<>();
        for (String service : JDK_SERVICES) {
            if (readablePackages.contains(packageOf(service))) {
                uses.add(service);
            }
        }
        for (ModuleReference other : plugin.values()) {
            for (ModuleDescriptor.Provides provides : other.descriptor().provides()) {
                String pn = packageOf(provides.service());
                if (plain.packages().contains(pn) || readablePackages.contains(pn)
                        || required.contains(packageOwners.get(pn))) {
                    uses.add(provides.service());
                }
            }
        }
        uses.forEach(builder::uses);
        addOwnTypes(builder, original, plain.packages(), uses);
        return builder.build();
    }

    /**
     * Declares that the module uses each top-level class of its packages: the types it may look up
     * as services. Listed from the jar's entries, without reading a class.
     */
    private static void addOwnTypes(ModuleDescriptor.Builder builder, ModuleReference module, Set<String> packages,
                                    Set<String> declared) {
        List<String> entries;
        try (ModuleReader reader = module.open(); Stream<String> names = reader.list()) {
            entries = names.toList();
        } catch (IOException unreadable) {
            throw new UncheckedIOException(unreadable);
        }
        for (String entry : entries) {
            // Nested classes are left out (rarely services, and as many again); '-' marks package-info and module-info.
            if (!entry.endsWith(".class") || entry.indexOf('$') >= 0 || entry.indexOf('-') >= 0
                    || entry.startsWith("META-INF/")) {
                continue;
            }
            String type = entry.substring(0, entry.length() - ".class".length()).replace('/', '.');
            if (packages.contains(packageOf(type)) && !declared.contains(type)) {
                try {
                    builder.uses(type);
                } catch (IllegalArgumentException notATypeName) {
                    // A class file under a name that is no Java identifier: no code can name it as a service.
                }
            }
        }
    }

    /** Whether module {@code from} reaches module {@code to} through the requires edges. */
    private static boolean reaches(Map<String, Set<String>> edges, String from, String to) {
        Deque<String> pending = new ArrayDeque<>(List.of(from));
        Set<String> seen = new HashSet<>();
        while (!pending.isEmpty()) {
            String next = pending.pop();
            if (next.equals(to)) {
                return true;
            }
            if (seen.add(next)) {
                pending.addAll(edges.getOrDefault(next, Set.of()));
            }
        }
        return false;
    }

    private static String packageOf(String type) {
        int dot = type.lastIndexOf('.');
        return dot < 0 ? "" : type.substring(0, dot);
    }

    private static Set<String> jdkServices() {
        Set<String> services = new TreeSet<>();
        for (Module module : ModuleLayer.boot().modules()) {
            if (PluginFolders.isJdk(module.getName())) {
                services.addAll(module.getDescriptor().uses());
                module.getDescriptor().provides().forEach(provides -> services.add(provides.service()));
            }
        }
        return services;
    }

    /** A plain jar under its rewritten descriptor; its classes and resources are read from the jar as before. */
    private static final class Rewritten extends ModuleReference {
        private final ModuleReference original;

        Rewritten(ModuleDescriptor descriptor, ModuleReference original) {
            super(descriptor, original.location().orElse(null));
            this.original = original;
        }

        @Override
        public ModuleReader open() throws IOException {
            return original.open();
        }
    }
}

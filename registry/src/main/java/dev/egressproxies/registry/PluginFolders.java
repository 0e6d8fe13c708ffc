package dev.egressproxies.registry;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.module.Configuration;
import java.lang.module.FindException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.lang.module.ResolutionException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plugins installed as folders, each loaded into a module layer of its own whose parent is the
 * platform's boot layer: a plugin sees its own jars and, of the platform, only the modules it
 * shares with plugins ({@link #SHARED}) and the JDK's, so two plugins may bundle different versions
 * of one library, and a plugin may bundle any version of a library the platform also uses.
 *
 * <p>A plain jar would be an automatic module, which reads every module of the parent layers: the
 * platform's Jackson beside the plugin's own, say, which the module system refuses. So each plain
 * jar of a plugin is loaded as an open module of the same name and packages that reads the plugin's
 * other modules, the shared modules and the JDK's, and may use any service type of its own or of
 * the JDK. A plugin whose layer cannot be made, or that was built against a provider API version
 * this platform cannot run, is reported, naming its folder and the problem; the others load. Layout and
 * reasons: docs/plugins.md.
 */
public final class PluginFolders {
    /**
     * The platform's modules a plugin may require without bundling them: the provider contract and
     * the APIs through which plugin and platform share telemetry and logging.
     */
    public static final Set<String> SHARED = Set.of("dev.egressproxies.api", "io.opentelemetry.api",
            "io.opentelemetry.context", "io.opentelemetry.common", "org.slf4j");
    private static final Logger LOG = LoggerFactory.getLogger(PluginFolders.class);
    /** The platform's own modules in the boot layer, the JDK's left out. */
    private static final Set<String> PLATFORM = ModuleLayer.boot().modules().stream().map(Module::getName)
            .filter(name -> !isJdk(name)).collect(Collectors.toSet());

    /** {@code ModuleLayer.Controller.enableNativeAccess(Module)}, which JDKs before 22 lack; null there. */
    private static final MethodHandle ENABLE_NATIVE_ACCESS = enableNativeAccessHandle();

    private PluginFolders() {
    }

    /** What loading the plugin folders gave: the layer of each plugin loaded, and the ones that failed. */
    public record Loaded(Map<Path, ModuleLayer> layers, List<BrokenPlugin> broken) {
        /** Copies the collections, keeping their order. */
        public Loaded {
            layers = Collections.unmodifiableMap(new LinkedHashMap<>(layers));
            broken = List.copyOf(broken);
        }
    }

    /**
     * Loads the plugins of {@code sources}: each is a folder whose subfolders are plugins (their
     * jars form one plugin) and whose jars are plugins of one jar each, or a single plugin jar.
     * Sources that do not exist are skipped.
     */
    public static Loaded load(List<Path> sources) {
        Map<Path, ModuleLayer> layers = new LinkedHashMap<>();
        List<BrokenPlugin> broken = new ArrayList<>();
        for (Path plugin : plugins(sources)) {
            try {
                layers.put(plugin, layer(plugin));
            } catch (BrokenPluginException failure) {
                LOG.warn("Plugin {} could not be loaded: {}", plugin, failure.getMessage());
                broken.add(new BrokenPlugin(plugin, failure.getMessage()));
            }
        }
        return new Loaded(layers, broken);
    }

    /** The plugins of {@code sources}, in a stable order. */
    static List<Path> plugins(List<Path> sources) {
        List<Path> plugins = new ArrayList<>();
        for (Path source : sources) {
            if (isJar(source)) {
                plugins.add(source);
            } else if (Files.isDirectory(source)) {
                try (Stream<Path> children = Files.list(source)) {
                    children.filter(child -> isJar(child) || Files.isDirectory(child)).sorted().forEach(plugins::add);
                } catch (IOException unreadable) {
                    LOG.warn("Plugin folder {} cannot be read: {}", source, unreadable.toString());
                }
            }
        }
        return plugins;
    }

    /** The layer of one plugin folder or jar, a child of the boot layer. */
    static ModuleLayer layer(Path plugin) {
        // A folder is searched as one, so two versions of one module in it are found and refused.
        ModuleFinder found = ModuleFinder.of(plugin);
        Set<ModuleReference> modules;
        try {
            modules = found.findAll();
        } catch (FindException unreadable) {
            throw new BrokenPluginException("its jars cannot be read as modules: " + rootMessage(unreadable)
                    + "; each jar must be a module or a plain jar, and no two may hold the same module or package");
        }
        if (modules.isEmpty()) {
            throw new BrokenPluginException("it holds no jar");
        }
        requireSharedOnly(modules);
        ApiVersions.requireCompatible(modules);
        PlainJars plain = PlainJars.of(modules, ModuleLayer.boot());
        ModuleFinder finder = plain.finder();
        Set<String> roots = modules.stream().map(module -> module.descriptor().name()).collect(Collectors.toSet());
        ModuleLayer boot = ModuleLayer.boot();
        try {
            Configuration configuration = boot.configuration().resolve(finder, ModuleFinder.of(), roots);
            // The JDK's platform loader as parent, not the platform's: a package no module of the
            // plugin reads is not found, rather than found among the platform's libraries.
            ModuleLayer.Controller controller = ModuleLayer.defineModulesWithOneLoader(configuration, List.of(boot),
                    ClassLoader.getPlatformClassLoader());
            plain.addReads(controller);
            allowNativeAccess(controller);
            return controller.layer();
        } catch (FindException | ResolutionException | LayerInstantiationException conflict) {
            throw new BrokenPluginException(rootMessage(conflict) + "; bundle every library the plugin needs in its"
                    + " folder, once");
        }
    }

    /**
     * Lets the plugin's modules call restricted methods (JNA loading a native library, the FFM API)
     * on JDK 22 and later, which otherwise print a warning at first use and are to be refused in a
     * later JDK. A plugin is trusted as the platform is; the grant needs this module to hold native
     * access itself, which the launcher gives it.
     */
    private static void allowNativeAccess(ModuleLayer.Controller controller) {
        if (ENABLE_NATIVE_ACCESS == null) {
            return;
        }
        for (Module module : controller.layer().modules()) {
            try {
                ENABLE_NATIVE_ACCESS.invoke(controller, module);
            } catch (Throwable refused) {
                // Only a JVM started with --illegal-native-access=deny and without the launcher's grant refuses.
                throw new BrokenPluginException("module " + module.getName() + " cannot be given native access ("
                        + refused + "); start the JVM with --enable-native-access=dev.egressproxies.registry");
            }
        }
    }

    /** A plugin's own modules may require, of the platform, only what it shares. */
    private static void requireSharedOnly(Set<ModuleReference> modules) {
        Set<String> own = modules.stream().map(module -> module.descriptor().name()).collect(Collectors.toSet());
        Set<String> borrowed = new TreeSet<>();
        for (ModuleReference module : modules) {
            for (ModuleDescriptor.Requires requires : module.descriptor().requires()) {
                String name = requires.name();
                if (!own.contains(name) && PLATFORM.contains(name) && !SHARED.contains(name)
                        && !requires.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC)) {
                    borrowed.add(module.descriptor().name() + " requires " + name);
                }
            }
        }
        if (!borrowed.isEmpty()) {
            throw new BrokenPluginException(String.join(", ", borrowed) + ", which the platform does not share with"
                    + " plugins (it shares " + new TreeSet<>(SHARED) + "); bundle it in the plugin's folder");
        }
    }

    private static MethodHandle enableNativeAccessHandle() {
        try {
            // Found through this class's own lookup: the method is caller-sensitive, and this module is the caller.
            return MethodHandles.lookup().findVirtual(ModuleLayer.Controller.class, "enableNativeAccess",
                    MethodType.methodType(ModuleLayer.Controller.class, Module.class));
        } catch (NoSuchMethodException | IllegalAccessException beforeJdk22) {
            return null;
        }
    }

    /** Whether {@code name} is a module of the JDK, which plugins read as the platform does. */
    static boolean isJdk(String name) {
        return name.startsWith("java.") || name.startsWith("jdk.");
    }

    private static boolean isJar(Path path) {
        return Files.isRegularFile(path) && path.getFileName().toString().endsWith(".jar");
    }

    private static String rootMessage(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.toString() : root.getMessage();
    }

    /** Why one plugin cannot be loaded; caught in {@link #load} and turned into a {@link BrokenPlugin}. */
    static final class BrokenPluginException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BrokenPluginException(String message) {
            super(message, null, false, false);
        }
    }
}

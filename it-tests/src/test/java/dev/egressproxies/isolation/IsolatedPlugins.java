package dev.egressproxies.isolation;

import dev.egressproxies.endtoend.EgressctlProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Six backend plugins built by the test, each a folder with its jar and a library it bundles, and
 * one broken plugin. Two bundle different versions of Guava, module {@code com.google.common},
 * and call what only their version has ({@code CharMatcher.ASCII}, gone in later versions;
 * {@code Ints.rotate}, new); the third bundles Jackson 2.17 (modular jars), older than the
 * platform's, keeps its state with it and reports its Jackson version as the plugin's. Three bundle
 * plain jars (automatic modules), which read every module of the platform unless the platform keeps
 * them from it: Jackson 2.9, of the same module names as the platform's Jackson; Jakarta Inject 1.0,
 * whose package {@code javax.inject} the platform's module {@code javax.inject} also holds (a split
 * package); and MINA SSHD 2.12, where the kvm plugin bundles 2.20, which looks up its I/O factory
 * with {@link java.util.ServiceLoader}. Each reports the jar its library was loaded from as its
 * version. On one module path none of this could load; each in its own layer, all work. The broken
 * one, of type {@code broken}, bundles both versions of Guava, so its layer cannot be resolved.
 *
 * <p>Every plugin is the same small file-backed backend (instances in one zone under IDs
 * {@code i-} and 16 hex digits, in a file of the entry's state directory, booting at once to
 * RUNNING) that passes the conformance suite.
 */
public final class IsolatedPlugins {
    /** The plugins built, by type. */
    public enum Kind {
        GUAVA_OLD("guava-old", "isolation.guavaold", "guava-old", "com.google.common",
                "com.google.common.base.CharMatcher.ASCII.matchesAllOf(name)", "\"1.0\""),
        GUAVA_NEW("guava-new", "isolation.guavanew", "guava-new", "com.google.common", Kind.ROTATE, "\"1.0\""),
        OWN_JACKSON("own-jackson", "isolation.ownjackson", "own-jackson", "com.fasterxml.jackson.databind",
                Kind.JACKSON_CALL, "\"jackson \" + com.fasterxml.jackson.databind.cfg.PackageVersion.VERSION"),
        /** Jackson 2.9's plain jars; looking up Jackson modules has the library call ServiceLoader itself. */
        PLAIN_JACKSON("plain-jackson", "isolation.plainjackson", "plain-jackson", "com.fasterxml.jackson.databind",
                Kind.JACKSON_CALL + " && new com.fasterxml.jackson.databind.ObjectMapper().findAndRegisterModules()"
                        + ".getRegisteredModuleIds().isEmpty()", Kind.jarOf("com.fasterxml.jackson.databind.ObjectMapper")),
        /** Jakarta Inject 1.0: package javax.inject in a plain jar, beside the platform's javax.inject module. */
        SPLIT_PACKAGE("split-package", "isolation.splitpackage", "split-package", "jakarta.inject.api",
                Kind.jarOf("javax.inject.Named") + ".equals(\"jakarta.inject-api-1.0.jar\")",
                Kind.jarOf("javax.inject.Named")),
        /** MINA SSHD 2.12: its default I/O factory is found through ServiceLoader, by its own code. */
        OTHER_SSHD("other-sshd", "isolation.othersshd", "other-sshd", "org.apache.sshd.osgi",
                "org.apache.sshd.common.io.DefaultIoServiceFactoryFactory.getDefaultIoServiceFactoryFactoryInstance()"
                        + ".getIoServiceProvider() != null",
                Kind.jarOf("org.apache.sshd.common.io.IoServiceFactoryFactory")),
        /** Both Guava versions in one folder: two modules named com.google.common, which no layer can hold. */
        BROKEN("broken", "isolation.broken", "guava-new", "com.google.common", Kind.ROTATE, "\"1.0\"");

        private static final String JACKSON_CALL = "!new com.fasterxml.jackson.databind.ObjectMapper()"
                + ".writeValueAsString(java.util.List.of(name)).isEmpty()";

        /** Guava's {@code Ints.rotate}, which came after 25.1. */
        private static final String ROTATE = "java.util.stream.Stream.of(name.chars().toArray())"
                + ".peek(codes -> com.google.common.primitives.Ints.rotate(codes, 1)).count() == 1";

        private final String type;
        private final String packageName;
        private final String libraries;
        private final String requires;
        private final String libraryCall;
        private final String version;

        Kind(String type, String packageName, String libraries, String requires, String libraryCall, String version) {
            this.type = type;
            this.packageName = packageName;
            this.libraries = libraries;
            this.requires = requires;
            this.libraryCall = libraryCall;
            this.version = version;
        }

        /** An expression for the file name of the jar {@code type} was loaded from. */
        private static String jarOf(String type) {
            return "java.nio.file.Path.of(" + type + ".class.getProtectionDomain().getCodeSource().getLocation()"
                    + ".getPath()).getFileName().toString()";
        }

        /** The type entries select it by. */
        public String type() {
            return type;
        }
    }

    /** The folder of plugin folders, built once per test JVM. */
    private static Path built;

    private IsolatedPlugins() {
    }

    /**
     * The folder that holds a subfolder per plugin, named after its type, as
     * {@code EGRESSCTL_PLUGINS} takes it; built on first use.
     */
    public static synchronized Path folder() {
        if (built == null) {
            try {
                // Under the build directory, beside the libraries, so a clean removes it and /tmp keeps nothing.
                Path target = Path.of(System.getProperty("isolation.libraries")).getParent();
                Path root = Files.createTempDirectory(target, "isolated-plugins");
                built = build(Files.createDirectories(root.resolve("plugins")), Files.createDirectories(root.resolve("build")));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return built;
    }

    private static Path build(Path root, Path scratch) throws IOException {
        Path lib = EgressctlProcess.distribution().resolve("lib");
        // What the platform shares with plugins: the provider contract and the APIs it requires.
        List<Path> shared = new ArrayList<>();
        for (String prefix : List.of("provider-api-", "opentelemetry-api-", "opentelemetry-context-",
                "opentelemetry-common-", "slf4j-api-")) {
            shared.add(jarIn(lib, prefix));
        }
        for (Kind kind : Kind.values()) {
            Path folder = Files.createDirectories(root.resolve(kind.type));
            Path libraries = Path.of(System.getProperty("isolation.libraries")).resolve(kind.libraries);
            List<Path> bundled;
            try (Stream<Path> jars = Files.list(libraries)) {
                bundled = jars.filter(jar -> jar.toString().endsWith(".jar")).sorted().toList();
            }
            for (Path library : bundled) {
                Files.copy(library, folder.resolve(library.getFileName()));
            }
            Path modulePath = Files.createTempDirectory(scratch, "compile");
            for (Path library : shared) {
                Files.copy(library, modulePath.resolve(library.getFileName()));
            }
            for (Path library : bundled) {
                Files.copy(library, modulePath.resolve(library.getFileName()));
            }
            compileAndPack(kind, modulePath, folder.resolve(kind.type + ".jar"));
            if (kind == Kind.BROKEN) {
                Path old = Path.of(System.getProperty("isolation.libraries")).resolve(Kind.GUAVA_OLD.libraries);
                try (Stream<Path> jars = Files.list(old)) {
                    for (Path library : jars.toList()) {
                        Files.copy(library, folder.resolve(library.getFileName()));
                    }
                }
            }
        }
        return root;
    }

    private static void compileAndPack(Kind kind, Path modulePath, Path jar) throws IOException {
        Path sources = Files.createTempDirectory(modulePath.getParent(), kind.type + "-sources");
        Path pkg = Files.createDirectories(sources.resolve(kind.packageName.replace('.', '/')));
        Files.writeString(sources.resolve("module-info.java"), "module " + kind.packageName + " {\n"
                + "    requires dev.egressproxies.api;\n    requires " + kind.requires + ";\n"
                + "    provides dev.egressproxies.api.spi.ProviderFactory with " + kind.packageName + ".Factory;\n"
                + "    opens " + kind.packageName + ";\n}\n");
        PluginSources.write(pkg, kind.packageName, kind.type, kind.libraryCall, kind.version);
        Path classes = sources.resolve("classes");
        // Registered both ways, like any plugin: as a module, and through its services file on a class path.
        Path services = Files.createDirectories(classes.resolve("META-INF/services"));
        Files.writeString(services.resolve("dev.egressproxies.api.spi.ProviderFactory"), kind.packageName + ".Factory\n");
        List<String> javac = new ArrayList<>(List.of(tool("javac"), "--release", "17", "-d", classes.toString(),
                "--module-path", modulePath.toString()));
        try (Stream<Path> files = Files.walk(sources)) {
            files.filter(file -> file.toString().endsWith(".java")).forEach(file -> javac.add(file.toString()));
        }
        run(javac);
        run(List.of(tool("jar"), "--create", "--file", jar.toString(), "-C", classes.toString(), "."));
    }

    private static Path jarIn(Path folder, String prefix) throws IOException {
        try (Stream<Path> jars = Files.list(folder)) {
            return jars.filter(jar -> jar.getFileName().toString().startsWith(prefix)).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no " + prefix + "*.jar in " + folder));
        }
    }

    private static String tool(String name) {
        return Path.of(System.getProperty("java.home"), "bin", name).toString();
    }

    /** Runs a JDK tool. */
    private static void run(List<String> command) throws IOException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        try {
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not finish");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed:\n" + output);
        }
    }
}

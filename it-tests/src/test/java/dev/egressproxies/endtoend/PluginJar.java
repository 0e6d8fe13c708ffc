package dev.egressproxies.endtoend;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;

/**
 * Packs the example plugin (its package and its service registration, nothing else from the test
 * classes) into a jar, as a third party would ship it.
 */
final class PluginJar {
    private static final String PACKAGE = "dev/egressproxies/example/";
    private static final String SERVICES = "META-INF/services/dev.egressproxies.api.spi.ProviderFactory";

    private PluginJar() {
    }

    /** Writes the jar into {@code directory} and returns its path. */
    static Path writeExamplePlugin(Path directory) throws IOException {
        Path classes = Path.of(System.getProperty("example.plugin.classes"));
        Path jar = directory.resolve("example-plugin-1.0.jar");
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.IMPLEMENTATION_VERSION, "1.0");
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file, manifest);
             Stream<Path> walk = Files.walk(classes.resolve(PACKAGE))) {
            List<Path> entries = walk.filter(Files::isRegularFile).sorted().toList();
            for (Path entry : entries) {
                put(out, classes.relativize(entry).toString().replace('\\', '/'), Files.readAllBytes(entry));
            }
            put(out, SERVICES, Files.readAllBytes(classes.resolve(SERVICES)));
        }
        return jar;
    }

    private static void put(JarOutputStream out, String name, byte[] content) throws IOException {
        out.putNextEntry(new JarEntry(name));
        out.write(content);
        out.closeEntry();
    }
}

package dev.egressproxies.isolation;

import dev.egressproxies.api.Placement;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.conformance.Capability;
import dev.egressproxies.conformance.ConformanceTarget;
import dev.egressproxies.conformance.ProviderConformanceTest;
import dev.egressproxies.conformance.TestProviderContext;
import dev.egressproxies.integration.ConfiguredProviders;
import dev.egressproxies.registry.PluginCatalog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conformance suite against one of the plugins {@link IsolatedPlugins} builds, each loaded
 * with only its own folder's jars (and the test's class path) so its bundled library is the one it
 * calls. Subclasses name the plugin.
 */
abstract class IsolatedPluginConformanceTest extends ProviderConformanceTest {
    private static final Map<IsolatedPlugins.Kind, ClassLoader> LOADERS = new EnumMap<>(IsolatedPlugins.Kind.class);

    @TempDir
    Path stateDirectory;

    /** The plugin under test. */
    abstract IsolatedPlugins.Kind kind();

    @Override
    protected ConformanceTarget createTarget() throws Exception {
        String entry = kind().type() + "-conformance";
        String yaml = "providers:\n  - {name: " + entry + ", type: " + kind().type()
                + ", zone: lab, machineTypes: [tiny], images: [alpine]}\n";
        PluginCatalog catalog = PluginCatalog.discover(loader(kind()));
        Provider provider = ConfiguredProviders.providerFromYaml(yaml, catalog, entry, Provider.class,
                new TestProviderContext(stateDirectory));
        return ConformanceTarget.builder(provider, entry)
                .capabilities(Capability.REACHES_RUNNING)
                .placement(new Placement("lab", "tiny", "alpine"))
                .malformedId("lab/not-an-id")
                .unknownId("i-0000000000000000")
                .stateTimeout(Duration.ofSeconds(5))
                .callTimeout(Duration.ofSeconds(10))
                .build();
    }

    private static synchronized ClassLoader loader(IsolatedPlugins.Kind kind) {
        return LOADERS.computeIfAbsent(kind, key -> {
            try (Stream<Path> jars = Files.list(IsolatedPlugins.folder().resolve(key.type()))) {
                URL[] urls = jars.map(IsolatedPluginConformanceTest::url).toArray(URL[]::new);
                return new URLClassLoader(urls, IsolatedPluginConformanceTest.class.getClassLoader());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    private static URL url(Path jar) {
        try {
            return jar.toUri().toURL();
        } catch (MalformedURLException e) {
            throw new IllegalArgumentException(e);
        }
    }
}

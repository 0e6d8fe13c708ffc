package dev.egressproxies.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.egressproxies.conformance.TestProviderContext;
import dev.egressproxies.registry.fixtures.Entries;
import dev.egressproxies.registry.fixtures.PluginJarBuilder;
import dev.egressproxies.registry.fixtures.PluginSources;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Discovery of plugins on the class path: real plugin jars with a {@code META-INF/services} file,
 * compiled at test time and loaded through a {@link URLClassLoader}.
 */
class ClassPathDiscoveryTest {
    @TempDir
    Path work;

    @Test
    void discoversAPluginListedInItsServicesFile() throws IOException {
        try (URLClassLoader loader = loaderOf(classPathPlugin("example.classy", "ClassyFactory", "classy", "classy.jar"))) {
            PluginCatalog catalog = PluginCatalog.discover(loader);

            assertThat(catalog.types()).containsExactly("classy");
            Plugin plugin = catalog.find("classy").orElseThrow();
            assertThat(plugin.version()).isEqualTo("2.0.0");
            assertThat(plugin.factoryClassName()).isEqualTo("example.classy.ClassyFactory");
            assertThat(plugin.location()).startsWith("class path file:").endsWith("classy.jar");
        }
    }

    @Test
    void bindsAndBuildsAnEntryOfAClassPathPlugin() throws IOException {
        try (URLClassLoader loader = loaderOf(classPathPlugin("example.classy", "ClassyFactory", "classy", "classy.jar"));
             ProviderRegistry registry = ProviderRegistry.build(PluginCatalog.discover(loader), Entries.yaml("""
                     - name: classy-a
                       type: classy
                       greeting: hallo
                     """), new TestProviderContext(work))) {
            assertThat(registry.require("classy-a").provider()).hasToString("classy-a says hallo");
        }
    }

    @Test
    void theDefaultDiscoveryUsesTheContextClassLoader() throws IOException {
        Thread thread = Thread.currentThread();
        ClassLoader original = thread.getContextClassLoader();
        try (URLClassLoader loader = loaderOf(classPathPlugin("example.classy", "ClassyFactory", "classy", "classy.jar"))) {
            thread.setContextClassLoader(loader);

            assertThat(PluginCatalog.discover().types()).containsExactly("classy");
        } finally {
            thread.setContextClassLoader(original);
        }
    }

    @Test
    void twoJarsProvidingOneTypeAreAnErrorNamingBothJars() throws IOException {
        try (URLClassLoader loader = loaderOf(
                classPathPlugin("example.first", "FirstFactory", "twin", "first.jar"),
                classPathPlugin("example.second", "SecondFactory", "twin", "second.jar"))) {
            assertThatThrownBy(() -> PluginCatalog.discover(loader))
                    .isInstanceOf(PluginDiscoveryException.class)
                    .hasMessageContaining("provider type 'twin' is provided twice")
                    .hasMessageContaining("example.first.FirstFactory from class path file:")
                    .hasMessageContaining("first.jar")
                    .hasMessageContaining("example.second.SecondFactory from class path file:")
                    .hasMessageContaining("second.jar");
        }
    }

    @Test
    void aServicesFileNamingAMissingClassIsAnErrorNamingTheClass() throws IOException {
        Path jar = new PluginJarBuilder()
                .source(PluginSources.path("example.classy", "ClassyFactory"),
                        PluginSources.factory("example.classy", "ClassyFactory", "classy"))
                .serviceFile("example.classy.ClassyFactory", "example.classy.MissingFactory")
                .build(work, "half-broken.jar");
        try (URLClassLoader loader = loaderOf(jar)) {
            assertThatThrownBy(() -> PluginCatalog.discover(loader))
                    .isInstanceOf(PluginDiscoveryException.class)
                    .hasMessageContaining("example.classy.MissingFactory not found")
                    .hasMessageContaining("fix or remove the plugin jar");
        }
    }

    @Test
    void aFactoryWhoseConstructorFailsIsAnErrorNamingItsClassJarAndCause() throws IOException {
        Path jar = new PluginJarBuilder()
                .source(PluginSources.path("example.broken", "BrokenFactory"),
                        PluginSources.failingConstructorFactory("example.broken", "BrokenFactory"))
                .serviceFile("example.broken.BrokenFactory")
                .build(work, "broken.jar");
        try (URLClassLoader loader = loaderOf(jar)) {
            assertThatThrownBy(() -> PluginCatalog.discover(loader))
                    .isInstanceOf(PluginDiscoveryException.class)
                    .hasMessageContaining("provider plugin example.broken.BrokenFactory from class path file:")
                    .hasMessageContaining("broken.jar could not be instantiated")
                    .hasMessageContaining("cannot read the plugin's bundled catalogue");
        }
    }

    private Path classPathPlugin(String packageName, String factoryClass, String type, String jarName)
            throws IOException {
        return new PluginJarBuilder()
                .source(PluginSources.path(packageName, factoryClass), PluginSources.factory(packageName, factoryClass, type))
                .serviceFile(packageName + "." + factoryClass)
                .implementationVersion("2.0.0")
                .build(work, jarName);
    }

    private URLClassLoader loaderOf(Path... jars) throws IOException {
        URL[] urls = new URL[jars.length];
        for (int index = 0; index < jars.length; index++) {
            urls[index] = jars[index].toUri().toURL();
        }
        return new URLClassLoader(urls, getClass().getClassLoader());
    }
}

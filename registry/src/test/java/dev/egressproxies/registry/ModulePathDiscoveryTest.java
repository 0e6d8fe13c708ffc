package dev.egressproxies.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.egressproxies.conformance.TestProviderContext;
import dev.egressproxies.registry.fixtures.Entries;
import dev.egressproxies.registry.fixtures.PluginJarBuilder;
import dev.egressproxies.registry.fixtures.PluginSources;
import java.io.IOException;
import java.lang.module.Configuration;
import java.lang.module.ModuleFinder;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Discovery of plugins on the module path: real modular plugin jars, compiled at test time, loaded
 * into a module layer of their own, as a platform that loads plugins from a directory would.
 */
class ModulePathDiscoveryTest {
    @TempDir
    Path work;

    @Test
    void discoversAModularPluginWithItsTypeVersionAndLocation() throws IOException {
        ModuleLayer layer = layerOf(modularPlugin("example.layered", "LayeredFactory", "layered", true, "layered.jar"));

        PluginCatalog catalog = PluginCatalog.discover(layer);

        assertThat(catalog.types()).containsExactly("layered");
        Plugin plugin = catalog.find("layered").orElseThrow();
        assertThat(plugin.version()).isEqualTo("3.1.4");
        assertThat(plugin.factoryClassName()).isEqualTo("example.layered.LayeredFactory");
        assertThat(plugin.location()).startsWith("module example.layered (file:").endsWith("layered.jar)");
    }

    @Test
    void bindsAndBuildsAnEntryOfAModularPlugin() throws IOException {
        ModuleLayer layer = layerOf(modularPlugin("example.layered", "LayeredFactory", "layered", true, "layered.jar"));

        try (ProviderRegistry registry = ProviderRegistry.build(PluginCatalog.discover(layer), Entries.yaml("""
                - name: layered-a
                  type: layered
                  greeting: bonjour
                """), new TestProviderContext(work))) {
            assertThat(registry.require("layered-a").provider()).hasToString("layered-a says bonjour");
            assertThat(registry.require("layered-a").pluginVersion()).isEqualTo("3.1.4");
        }
    }

    @Test
    void aPluginThatDoesNotOpenItsConfigPackageIsToldToOpenIt() throws IOException {
        ModuleLayer layer = layerOf(modularPlugin("example.closed", "ClosedFactory", "closed", false, "closed.jar"));
        PluginCatalog catalog = PluginCatalog.discover(layer);

        assertThatThrownBy(() -> ProviderRegistry.build(catalog, Entries.yaml("""
                - name: closed-a
                  type: closed
                  greeting: hello
                """), new TestProviderContext(work)))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("entry 'closed-a' (type closed): providers[0]")
                .hasMessageContaining("'opens example.closed;'");
    }

    @Test
    void twoModulesProvidingOneTypeAreAnErrorNamingBoth() throws IOException {
        ModuleLayer layer = layerOf(
                modularPlugin("example.first", "FirstFactory", "twin", true, "first.jar"),
                modularPlugin("example.second", "SecondFactory", "twin", true, "second.jar"));

        assertThatThrownBy(() -> PluginCatalog.discover(layer))
                .isInstanceOf(PluginDiscoveryException.class)
                .hasMessageContaining("provider type 'twin' is provided twice")
                .hasMessageContaining("example.first.FirstFactory from module example.first (file:")
                .hasMessageContaining("first.jar")
                .hasMessageContaining("example.second.SecondFactory from module example.second (file:")
                .hasMessageContaining("second.jar")
                .hasMessageContaining("remove one of the two plugins");
    }

    private Path modularPlugin(String moduleName, String factoryClass, String type, boolean opensPackage,
                               String jarName) throws IOException {
        return new PluginJarBuilder()
                .source(moduleName + "/module-info.java",
                        PluginSources.moduleInfo(moduleName, moduleName, factoryClass, opensPackage))
                .source(moduleName + "/" + PluginSources.path(moduleName, factoryClass),
                        PluginSources.factory(moduleName, factoryClass, type))
                .moduleVersion("3.1.4")
                .build(work, jarName);
    }

    /** A layer over the boot layer (where provider-api lives) holding the given plugin jars. */
    private static ModuleLayer layerOf(Path... jars) {
        ModuleFinder finder = ModuleFinder.of(jars);
        Set<String> roots = new java.util.HashSet<>();
        finder.findAll().forEach(module -> roots.add(module.descriptor().name()));
        Configuration configuration = ModuleLayer.boot().configuration()
                .resolveAndBind(finder, ModuleFinder.of(), roots);
        return ModuleLayer.boot().defineModulesWithOneLoader(configuration, ClassLoader.getSystemClassLoader());
    }
}

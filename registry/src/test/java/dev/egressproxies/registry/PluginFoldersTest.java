package dev.egressproxies.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.conformance.TestProviderContext;
import dev.egressproxies.registry.fixtures.Entries;
import dev.egressproxies.registry.fixtures.PluginJarBuilder;
import dev.egressproxies.registry.fixtures.PluginSources;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Plugins installed as folders: each loads into a module layer of its own whose only parent is the
 * boot layer; one that cannot be loaded is reported with its folder, and only its entries fail.
 */
class PluginFoldersTest {
    @TempDir
    Path work;

    @Test
    void eachPluginFolderAndEachJarIsAPluginInALayerOfItsOwnOverTheBootLayer() throws IOException {
        Path plugins = pluginsWithBeta();
        Path alpha = Files.createDirectories(plugins.resolve("alpha"));
        plugin("example.alpha", "AlphaFactory", "alpha", alpha, "alpha.jar");

        PluginCatalog catalog = PluginCatalog.discover(List.of(plugins, work.resolve("absent")));

        assertThat(catalog.broken()).isEmpty();
        Module alphaModule = catalog.find("alpha").orElseThrow().factory().getClass().getModule();
        Module betaModule = catalog.find("beta").orElseThrow().factory().getClass().getModule();
        assertThat(alphaModule.getLayer()).isNotSameAs(betaModule.getLayer()).isNotSameAs(ModuleLayer.boot());
        assertThat(alphaModule.getLayer().parents()).containsExactly(ModuleLayer.boot());
        assertThat(betaModule.getLayer().parents()).containsExactly(ModuleLayer.boot());
        assertThat(PluginFolders.plugins(List.of(plugins))).containsExactly(alpha, plugins.resolve("beta.jar"));
    }

    @Test
    void aPluginsModulesMayCallRestrictedMethodsWithoutTheJdksWarning() throws Exception {
        assumeTrue(Runtime.version().feature() >= 22, "native access is granted per module from JDK 22 on");
        Path plugins = pluginsWithBeta();

        Module beta = PluginCatalog.discover(List.of(plugins)).find("beta").orElseThrow().factory().getClass()
                .getModule();

        Method nativeAccess = Module.class.getMethod("isNativeAccessEnabled");
        assertThat(nativeAccess.invoke(beta)).isEqualTo(true);
        // The grant is the plugin's own: an unrelated module of the platform does not get it.
        assertThat(nativeAccess.invoke(JsonNode.class.getModule())).isEqualTo(false);
    }

    @Test
    void aFolderWithTwoVersionsOfOneModuleIsReportedAndOnlyItsEntriesFail() throws IOException {
        Path plugins = pluginsWithBeta();
        Path twin = Files.createDirectories(plugins.resolve("twin"));
        plugin("example.twin", "TwinFactory", "twin", twin, "twin-1.jar");
        plugin("example.twin", "TwinFactory", "twin", twin, "twin-2.jar");

        PluginCatalog catalog = PluginCatalog.discover(List.of(plugins));

        assertThat(catalog.types()).contains("beta").doesNotContain("twin");
        assertThat(catalog.broken()).singleElement().satisfies(broken -> {
            assertThat(broken.location()).isEqualTo(twin);
            assertThat(broken.problem()).contains("example.twin");
        });
        try (ProviderRegistry registry = ProviderRegistry.buildIsolatingFailures(catalog, entries("""
                - name: twin-a
                  type: twin
                  greeting: hello
                - name: beta-a
                  type: beta
                  greeting: hi
                """), new TestProviderContext(work))) {
            assertThat(registry.require("beta-a").provider()).hasToString("beta-a says hi");
            ProviderException failure = catchThrowableOfType(ProviderException.class,
                    () -> registry.require("twin-a").provider().listManaged(Deadline.none()));
            assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
            assertThat(failure.detail()).contains("no loaded plugin provides type 'twin'", twin.toString(),
                    "example.twin");
        }
    }

    /** A plugins folder holding the one-jar plugin of type {@code beta}. */
    private Path pluginsWithBeta() throws IOException {
        Path plugins = Files.createDirectories(work.resolve("plugins"));
        plugin("example.beta", "BetaFactory", "beta", plugins, "beta.jar");
        return plugins;
    }

    @Test
    void aPluginBuiltAgainstAnIncompatibleApiIsRefusedNamingBothVersions() throws IOException {
        String platform = ApiVersions.platform().orElse(null);
        assumeTrue(platform != null, "the provider API runs from a jar that names its version");
        Path plugins = pluginsWithBeta();
        // A plain plugin jar names its API version in its manifest; the class itself is never read.
        Path future = plugins.resolve("future.jar");
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().putValue(ApiVersions.MANIFEST_ATTRIBUTE, "99.0.0");
        try (JarOutputStream jar = new JarOutputStream(Files.newOutputStream(future), manifest)) {
            jar.putNextEntry(new JarEntry("META-INF/services/dev.egressproxies.api.spi.ProviderFactory"));
            jar.write("example.future.FutureFactory\n".getBytes(StandardCharsets.UTF_8));
            jar.putNextEntry(new JarEntry("example/future/FutureFactory.class"));
            jar.write(new byte[] {(byte) 0xCA, (byte) 0xFE});
        }

        PluginCatalog catalog = PluginCatalog.discover(List.of(plugins));

        assertThat(catalog.types()).contains("beta");
        assertThat(catalog.broken()).singleElement().satisfies(broken -> {
            assertThat(broken.location()).isEqualTo(future);
            assertThat(broken.problem()).contains("built against provider API 99.0.0",
                    "this egressctl has provider API " + platform);
        });
    }

    private static List<JsonNode> entries(String yaml) {
        List<JsonNode> entries = new ArrayList<>();
        Entries.yaml(yaml).forEach(entries::add);
        return entries;
    }

    private void plugin(String moduleName, String factoryClass, String type, Path folder, String jarName)
            throws IOException {
        Path jar = new PluginJarBuilder()
                .source(moduleName + "/module-info.java",
                        PluginSources.moduleInfo(moduleName, moduleName, factoryClass, true))
                .source(moduleName + "/" + PluginSources.path(moduleName, factoryClass),
                        PluginSources.factory(moduleName, factoryClass, type))
                .build(Files.createDirectories(work.resolve("build-" + jarName)), jarName);
        Files.copy(jar, folder.resolve(jarName));
    }
}

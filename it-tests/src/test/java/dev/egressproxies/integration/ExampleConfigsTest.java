package dev.egressproxies.integration;

import dev.egressproxies.conformance.TestProviderContext;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.registry.PluginCatalog;
import dev.egressproxies.registry.ProviderRegistry;
import dev.egressproxies.runtime.apply.DesiredState;
import dev.egressproxies.runtime.apply.ProxySetLoader;
import dev.egressproxies.runtime.config.ConfigLoader;
import dev.egressproxies.runtime.config.Configuration;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keeps the example files in {@code examples/} valid: every config there builds all its entries
 * through the real loader and registry, and every desired set there resolves against them.
 */
class ExampleConfigsTest {
    private static final Path EXAMPLES = Path.of(System.getProperty("user.dir")).resolveSibling("examples");

    @TempDir
    Path stateDirectory;

    @TestFactory
    Stream<DynamicTest> everyExampleConfigBuildsEveryEntry() throws IOException {
        List<Path> configs = files("providers:");
        assertThat(configs).as("example configs in " + EXAMPLES).isNotEmpty();
        return configs.stream().map(file -> DynamicTest.dynamicTest(file.getFileName().toString(), () -> {
            Configuration configuration = new ConfigLoader().load(file);
            try (ProviderRegistry registry = ProviderRegistry.build(PluginCatalog.discover(),
                    configuration.providers(), new TestProviderContext(stateDirectory))) {
                assertThat(registry.entries()).hasSameSizeAs(configuration.providers());
            }
        }));
    }

    @TestFactory
    Stream<DynamicTest> everyExampleDesiredSetResolves() throws IOException {
        List<Path> sets = files("proxies:");
        assertThat(sets).as("example desired sets in " + EXAMPLES).isNotEmpty();
        return sets.stream().map(file -> DynamicTest.dynamicTest(file.getFileName().toString(), () -> {
            // Checked against the example configs' own entries, placements included.
            List<ProviderRegistry> registries = new ArrayList<>();
            try {
                for (Path config : files("providers:")) {
                    registries.add(ProviderRegistry.build(PluginCatalog.discover(),
                            new ConfigLoader().load(config).providers(), new TestProviderContext(stateDirectory)));
                }
                DesiredState state = new ProxySetLoader().load(file, name -> registries.stream()
                        .flatMap(registry -> registry.provider(name).stream()).findFirst());
                assertThat(state.proxies()).isNotEmpty();
            } finally {
                registries.forEach(ProviderRegistry::close);
            }
        }));
    }

    private static List<Path> files(String topLevelKey) throws IOException {
        try (Stream<Path> listing = Files.list(EXAMPLES)) {
            return listing.filter(file -> file.toString().endsWith(".yaml"))
                    .filter(file -> startsAtTopLevel(file, topLevelKey))
                    .sorted()
                    .collect(Collectors.toList());
        }
    }

    private static boolean startsAtTopLevel(Path file, String key) {
        try {
            return Files.readAllLines(file).stream().anyMatch(line -> line.startsWith(key));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}

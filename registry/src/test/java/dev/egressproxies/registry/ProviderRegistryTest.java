package dev.egressproxies.registry;

import static dev.egressproxies.registry.RegistryTestSupport.assertRejected;
import static dev.egressproxies.registry.RegistryTestSupport.build;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.api.conformance.ConformanceProfile;
import dev.egressproxies.api.spi.ProviderContext;
import dev.egressproxies.api.spi.ProviderFactory;
import dev.egressproxies.conformance.TestProviderContext;
import dev.egressproxies.registry.fixtures.Entries;
import dev.egressproxies.registry.fixtures.FailingFactory;
import dev.egressproxies.registry.fixtures.GreetingFactory;
import dev.egressproxies.registry.fixtures.HostsFactory;
import dev.egressproxies.registry.fixtures.RecordingProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Building a registry from entries, looking entries up, and closing what was built. */
class ProviderRegistryTest {
    private final AtomicInteger closeOrder = new AtomicInteger();
    private final HostsFactory hosts = new HostsFactory(closeOrder);
    private final GreetingFactory greetings = new GreetingFactory(closeOrder);
    private final PluginCatalog catalog = PluginCatalog.of(hosts, greetings, new FailingFactory());

    private static final String TWO_ENTRIES = """
            - name: kvm-a
              type: hosts
              hosts: [{address: 10.0.0.5}]
            - name: greet
              type: greeting
              greeting: hi
            """;

    @Test
    void keepsTheEntriesInConfigurationOrderWithTheirPlugin() {
        try (ProviderRegistry registry = build(catalog, TWO_ENTRIES)) {
            assertThat(registry.names()).containsExactly("kvm-a", "greet");
            ProviderEntry first = registry.entries().get(0);
            assertThat(first.name()).isEqualTo("kvm-a");
            assertThat(first.type()).isEqualTo("hosts");
            assertThat(first.pluginVersion()).isEqualTo("1.0-test");
            assertThat(first.pluginLocation()).startsWith("module dev.egressproxies.registry");
            assertThat(first.provider()).isSameAs(hosts.built().get(0));
            assertThat(hosts.built().get(0).entryName()).isEqualTo("kvm-a");
        }
    }

    @Test
    void givesThePluginsConformanceProfileOfAnEntryFromItsSettingsAndProvider() {
        try (ProviderRegistry registry = build(catalog, TWO_ENTRIES)) {
            ConformanceProfile profile = registry.conformanceProfile("greet").orElseThrow();
            assertThat(profile.placements()).containsExactly(new Placement("", "small", "hi"));
            assertThat(profile.malformedId()).isEqualTo("greet!");
            assertThat(greetings.profiled()).containsExactly(greetings.built().get(0));
            assertThat(registry.conformanceProfile("kvm-a")).as("a plugin that declares none").isEmpty();
            assertThatThrownBy(() -> registry.conformanceProfile("nope")).isInstanceOf(NoSuchElementException.class)
                    .hasMessageContaining("no provider entry named 'nope'");
        }
    }

    @Test
    void findsEntriesByName() {
        try (ProviderRegistry registry = build(catalog, TWO_ENTRIES)) {
            assertThat(registry.find("greet")).map(ProviderEntry::type).contains("greeting");
            assertThat(registry.provider("greet")).containsSame(greetings.built().get(0));
            assertThat(registry.find("nope")).isEmpty();
            assertThat(registry.provider("nope")).isEmpty();
        }
    }

    @Test
    void requireOfAnUnknownNameListsTheConfiguredNames() {
        try (ProviderRegistry registry = build(catalog, TWO_ENTRIES)) {
            assertThatThrownBy(() -> registry.require("kvm-b"))
                    .isInstanceOf(NoSuchElementException.class)
                    .hasMessage("no provider entry named 'kvm-b' (configured: kvm-a, greet)");
        }
    }

    @Test
    void exposesTheCatalogOfDiscoveredTypes() {
        try (ProviderRegistry registry = build(catalog, TWO_ENTRIES)) {
            assertThat(registry.catalog().types()).containsExactly("failing", "greeting", "hosts");
        }
    }

    @Test
    void entriesOfOneTypeLiveSideBySide() {
        try (ProviderRegistry registry = build(catalog, """
                - name: kvm-a
                  type: hosts
                  hosts: [{address: 10.0.0.5}]
                - name: kvm-b
                  type: hosts
                  hosts: [{address: 10.0.0.6}]
                """)) {
            assertThat(registry.provider("kvm-a")).isNotEqualTo(registry.provider("kvm-b"));
            assertThat(hosts.built()).extracting(RecordingProvider::entryName).containsExactly("kvm-a", "kvm-b");
        }
    }

    @Test
    void closeClosesEveryProviderInReverseOrderOnce() {
        ProviderRegistry registry = build(catalog, TWO_ENTRIES);

        registry.close();
        registry.close();

        assertThat(greetings.built().get(0).closedAs()).isEqualTo(1);
        assertThat(hosts.built().get(0).closedAs()).isEqualTo(2);
        assertThat(closeOrder).hasValue(2);
    }

    @Test
    void noEntriesMakeAnEmptyRegistry() {
        TestProviderContext context = new TestProviderContext(Path.of("state"));
        try (ProviderRegistry fromMissing = ProviderRegistry.build(catalog, MissingNode.getInstance(), context);
             ProviderRegistry fromEmptyList = build(catalog, "[]")) {
            assertThat(fromMissing.entries()).isEmpty();
            assertThat(fromEmptyList.entries()).isEmpty();
        }
    }

    @Test
    void entriesCanBeGivenAsAListUnderAnotherConfigPath() {
        assertThatThrownBy(() -> ProviderRegistry.build(catalog, "egress.backends",
                List.of(Entries.yaml("{name: kvm-a, type: hosts, hosts: [{adress: x}]}")),
                new TestProviderContext(Path.of("state"))))
                .hasMessageContaining("egress.backends[0].hosts[0].adress: unknown field");
    }

    @Test
    void aFailingFactoryClosesTheProvidersBuiltBeforeAndNamesTheEntry() {
        assertRejected(catalog, """
                - name: kvm-a
                  type: hosts
                  hosts: [{address: 10.0.0.5}]
                - name: greet
                  type: greeting
                - name: broken
                  type: failing
                - name: never-built
                  type: greeting
                """).hasMessageContaining("entry 'broken' (type failing): providers[2]: could not be built:"
                        + " key file /missing/id_ed25519 does not exist; create it or fix keyFile"
                        + " (closed the 2 entries built before it)")
                .hasCauseInstanceOf(ProviderException.class);

        assertThat(hosts.built()).singleElement().satisfies(provider -> assertThat(provider.isClosed()).isTrue());
        assertThat(greetings.built()).singleElement().satisfies(provider -> assertThat(provider.isClosed()).isTrue());
        assertThat(greetings.built()).extracting(RecordingProvider::entryName).doesNotContain("never-built");
    }

    @Test
    void aFactoryThrowingAnyExceptionIsReportedWithTheEntry() {
        ProviderFactory<GreetingFactory.GreetingSettings> throwing = new ProviderFactory<>() {
            @Override
            public String type() {
                return "throwing";
            }

            @Override
            public Class<GreetingFactory.GreetingSettings> configType() {
                return GreetingFactory.GreetingSettings.class;
            }

            @Override
            public Provider create(String entryName, GreetingFactory.GreetingSettings config, ProviderContext context) {
                throw new IllegalStateException("plugin bug");
            }
        };

        assertRejected(PluginCatalog.of(throwing, hosts), """
                - name: kvm-a
                  type: hosts
                  hosts: [{address: 10.0.0.5}]
                - name: odd
                  type: throwing
                """).hasMessageContaining("entry 'odd' (type throwing): providers[1]: could not be built:"
                + " java.lang.IllegalStateException: plugin bug (closed the 1 entries built before it)");
        assertThat(hosts.built().get(0).isClosed()).isTrue();
    }

    @Test
    void aFactoryReturningNoProviderIsReportedAsAPluginBug() {
        ProviderFactory<GreetingFactory.GreetingSettings> returningNull = new ProviderFactory<>() {
            @Override
            public String type() {
                return "empty";
            }

            @Override
            public Class<GreetingFactory.GreetingSettings> configType() {
                return GreetingFactory.GreetingSettings.class;
            }

            @Override
            public Provider create(String entryName, GreetingFactory.GreetingSettings config, ProviderContext context) {
                return null;
            }
        };

        assertRejected(PluginCatalog.of(returningNull), """
                - name: hollow
                  type: empty
                """).hasMessageContaining("entry 'hollow' (type empty): providers[0]: could not be built:")
                .hasMessageContaining("returned no provider (a bug in the plugin)");
    }

    @Test
    void isolatingFailuresKeepsTheOtherEntriesAndFailsOnlyTheBrokenOnesCalls() {
        TestProviderContext context = new TestProviderContext(Path.of("state"));
        try (ProviderRegistry registry = ProviderRegistry.buildIsolatingFailures(catalog, elements("""
                - name: kvm-a
                  type: hosts
                  hosts: [{address: 10.0.0.5}]
                - name: broken
                  type: failing
                - name: greet
                  type: greeting
                """), context)) {
            assertThat(registry.names()).containsExactly("kvm-a", "broken", "greet");
            assertThat(registry.provider("kvm-a")).containsSame(hosts.built().get(0));
            assertThat(hosts.built().get(0).isClosed()).isFalse();
            Provider broken = registry.provider("broken").orElseThrow();
            assertThatThrownBy(() -> broken.listManaged(Deadline.after(Duration.ofSeconds(1))))
                    .isInstanceOfSatisfying(ProviderException.class, failure -> {
                        assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
                        assertThat(failure.entry()).isEqualTo("broken");
                        assertThat(failure.getMessage()).contains("listManaged on provider entry 'broken'")
                                .contains("could not be built").contains("key file /missing/id_ed25519 does not exist");
                    });
            assertThat(broken.preflight(Deadline.after(Duration.ofSeconds(1))))
                    .singleElement().satisfies(check -> assertThat(check.passed()).isFalse());
            assertThat(registry.conformanceProfile("broken")).as("an entry that was not built has none").isEmpty();
        }
    }

    @Test
    void isolatingFailuresStillRejectsTheWholeConfigForABindingProblem() {
        assertThatThrownBy(() -> ProviderRegistry.buildIsolatingFailures(catalog, elements("""
                - name: kvm-a
                  type: hosts
                  hosts: [{adress: 10.0.0.5}]
                - name: greet
                  type: greeting
                """), new TestProviderContext(Path.of("state"))))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("providers[0].hosts[0].adress: unknown field");
        assertThat(greetings.built()).isEmpty();
    }

    private static List<JsonNode> elements(String yaml) {
        List<JsonNode> entries = new ArrayList<>();
        Entries.yaml(yaml).elements().forEachRemaining(entries::add);
        return entries;
    }
}

package dev.egressproxies.registry;

import static dev.egressproxies.registry.RegistryTestSupport.assertProblems;
import static dev.egressproxies.registry.RegistryTestSupport.assertRejected;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.egressproxies.conformance.TestProviderContext;
import dev.egressproxies.registry.fixtures.Entries;
import dev.egressproxies.registry.fixtures.GreetingFactory;
import dev.egressproxies.registry.fixtures.HostsFactory;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The checks on each entry's {@code name} and {@code type}, before any setting is bound. */
class EntryValidationTest {
    private final HostsFactory hosts = new HostsFactory();
    private final PluginCatalog catalog = PluginCatalog.of(hosts, new GreetingFactory());

    @Test
    void aMissingNameIsAnErrorAtTheEntrysPath() {
        assertRejected(catalog, """
                - name: first
                  type: greeting
                - type: greeting
                """).hasMessageContaining("providers[1].name: missing; give every entry a unique name");
    }

    @Test
    void aBlankNameIsAnError() {
        assertRejected(catalog, """
                - name: "  "
                  type: greeting
                """).hasMessageContaining("providers[0].name: blank");
    }

    @Test
    void aNameThatIsNotAStringIsAnError() {
        assertRejected(catalog, """
                - name: [a, b]
                  type: greeting
                """).hasMessageContaining("providers[0].name: expected a string, got a list");
    }

    @Test
    void aNameWithUnsafeCharactersIsAnError() {
        assertRejected(catalog, """
                - name: kvm/a
                  type: greeting
                """).hasMessageContaining("providers[0].name: 'kvm/a' is not a valid entry name");
    }

    @Test
    void aMissingTypeIsAnErrorListingTheKnownTypes() {
        assertRejected(catalog, """
                - name: first
                """).hasMessageContaining("providers[0].type: missing; set it to one of the known types: greeting, hosts");
    }

    @Test
    void anUnknownTypeIsAnErrorNamingTheEntryAndListingTheKnownTypes() {
        assertRejected(catalog, """
                - name: kvm-a
                  type: kvn
                """).hasMessageContaining("entry 'kvm-a' (type kvn): providers[0].type: unknown provider type 'kvn'"
                + " (known types: greeting, hosts); correct the type or install the plugin that provides it");
    }

    @Test
    void anUnknownTypeWithNoPluginsInstalledSaysSo() {
        assertRejected(PluginCatalog.of(), """
                - name: kvm-a
                  type: kvm
                """).hasMessageContaining("unknown provider type 'kvm' (no provider plugins are installed)");
    }

    @Test
    void duplicateEntryNamesAreAnErrorNamingBothIndexes() {
        assertRejected(catalog, """
                - name: kvm-a
                  type: greeting
                - name: other
                  type: greeting
                - name: kvm-a
                  type: greeting
                """).hasMessageContaining("providers[2].name: duplicate entry name 'kvm-a', already used by providers[0]");
    }

    @Test
    void anEntryThatIsNotAnObjectIsAnError() {
        assertRejected(catalog, """
                - just-a-string
                """).hasMessageContaining("providers[0]: expected an object with 'name' and 'type', got a string \"just-a-string\"");
    }

    @Test
    void providersThatAreNotAListAreAnError() {
        assertThatThrownBy(() -> ProviderRegistry.build(catalog, Entries.yaml("name: kvm-a"),
                new TestProviderContext(Path.of("state"))))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("providers: expected a list of provider entries, got an object");
    }

    @Test
    void problemsAreListedInConfigurationOrderWhicheverCheckFoundThem() {
        assertProblems(catalog, """
                - name: kvm-a
                  type: hosts
                  hosts: [{adress: 10.0.0.5}]
                - type: greeting
                """).satisfies(error -> assertThat(error.problems()).containsExactly(
                "entry 'kvm-a' (type hosts): providers[0].hosts[0].adress: unknown field (known: address, name, user)",
                "providers[1].name: missing; give every entry a unique name"));
    }

    @Test
    void everyEntryProblemIsReportedAtOnceAndNothingIsBuilt() {
        assertProblems(catalog, """
                - type: greeting
                - name: b
                  type: nope
                - name: c
                  type: hosts
                  hosts: [{address: 10.0.0.1}]
                  colour: blue
                """).satisfies(error -> {
                    assertThat(error.problems()).hasSize(3);
                    assertThat(error.problems().get(0)).startsWith("providers[0].name: missing");
                    assertThat(error.problems().get(1)).startsWith("entry 'b' (type nope): providers[1].type");
                    assertThat(error.problems().get(2)).startsWith("entry 'c' (type hosts): providers[2].colour");
                });
        assertThat(hosts.built()).isEmpty();
    }
}

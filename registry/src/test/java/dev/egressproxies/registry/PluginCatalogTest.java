package dev.egressproxies.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.egressproxies.api.Provider;
import dev.egressproxies.api.spi.ProviderContext;
import dev.egressproxies.api.spi.ProviderFactory;
import dev.egressproxies.registry.fixtures.FailingFactory;
import dev.egressproxies.registry.fixtures.GreetingFactory;
import dev.egressproxies.registry.fixtures.HostsFactory;
import dev.egressproxies.registry.fixtures.SecondHostsFactory;
import org.junit.jupiter.api.Test;

/** A catalog made from an explicit list of factories, as tests and hand-wired runtimes make it. */
class PluginCatalogTest {

    @Test
    void listsThePluginsSortedByType() {
        PluginCatalog catalog = PluginCatalog.of(new HostsFactory(), new GreetingFactory(), new FailingFactory());

        assertThat(catalog.types()).containsExactly("failing", "greeting", "hosts");
        assertThat(catalog.plugins()).extracting(Plugin::type).containsExactly("failing", "greeting", "hosts");
        assertThat(catalog.find("nope")).isEmpty();
    }

    @Test
    void describesEachPluginsVersionAndLocation() {
        Plugin plugin = PluginCatalog.of(new HostsFactory()).find("hosts").orElseThrow();

        assertThat(plugin.version()).isEqualTo("1.0-test");
        assertThat(plugin.factoryClassName()).isEqualTo(HostsFactory.class.getName());
        assertThat(plugin.location()).startsWith("module dev.egressproxies.registry (");
    }

    @Test
    void twoFactoriesOfOneTypeAreAnErrorNamingBoth() {
        assertThatThrownBy(() -> PluginCatalog.of(new HostsFactory(), new SecondHostsFactory()))
                .isInstanceOf(PluginDiscoveryException.class)
                .hasMessageContaining("provider type 'hosts' is provided twice")
                .hasMessageContaining("by " + HostsFactory.class.getName() + " from module dev.egressproxies.registry")
                .hasMessageContaining("by " + SecondHostsFactory.class.getName() + " from module dev.egressproxies.registry");
    }

    @Test
    void theSameFactoryClassFoundTwiceCountsOnce() {
        // Discovery through the boot layer and through the class loader sees module-path plugins twice.
        PluginCatalog catalog = PluginCatalog.of(new HostsFactory(), new HostsFactory());

        assertThat(catalog.plugins()).hasSize(1);
    }

    @Test
    void aFactoryWithABlankTypeIsAnErrorNamingIt() {
        ProviderFactory<String> blank = new ProviderFactory<>() {
            @Override
            public String type() {
                return " ";
            }

            @Override
            public Class<String> configType() {
                return String.class;
            }

            @Override
            public Provider create(String entryName, String config, ProviderContext context) {
                throw new UnsupportedOperationException();
            }
        };

        assertThatThrownBy(() -> PluginCatalog.of(blank))
                .isInstanceOf(PluginDiscoveryException.class)
                .hasMessageContaining(blank.getClass().getName())
                .hasMessageContaining("a type must be a non-blank name");
    }
}

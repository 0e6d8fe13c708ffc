/**
 * The egress-proxies plugin registry: discovers provider plugins with {@link java.util.ServiceLoader},
 * binds each configured provider entry to its plugin's configuration record and builds the
 * providers, all or nothing.
 *
 * <p>This is the only module of the platform that calls {@code ServiceLoader}. A plugin's
 * configuration record package must be open to reflection ({@code opens} in the plugin's
 * module-info), because Jackson constructs the record reflectively.
 */
module dev.egressproxies.registry {
    requires transitive dev.egressproxies.api;
    // JsonNode is part of this module's API: entries are fed in as Jackson trees.
    requires transitive com.fasterxml.jackson.databind;
    requires org.slf4j;

    exports dev.egressproxies.registry;

    uses dev.egressproxies.api.spi.ProviderFactory;
}

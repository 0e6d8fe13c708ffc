/**
 * The fake egress-proxies backend: an in-memory (optionally file-backed) provider with fault
 * injection, for tests, demos and the runtime's embedded default. Selected by {@code type: fake}.
 */
module dev.egressproxies.fake {
    requires transitive dev.egressproxies.api;
    requires com.fasterxml.jackson.core;
    requires org.slf4j;

    exports dev.egressproxies.fake;

    // The platform binds FakeConfig and FaultConfig with Jackson, by reflection.
    opens dev.egressproxies.fake;

    provides dev.egressproxies.api.spi.ProviderFactory with dev.egressproxies.fake.FakeProviderFactory;
}

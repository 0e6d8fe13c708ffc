/**
 * The fake egress-proxies backend: an in-memory (optionally file-backed) provider with fault
 * injection, for tests, demos and the runtime's embedded default. Selected by {@code type: fake}.
 */
module dev.egressproxies.fake {
    requires transitive dev.egressproxies.api;
    requires com.fasterxml.jackson.databind;
    requires com.fasterxml.jackson.datatype.jsr310;
    requires org.slf4j;

    exports dev.egressproxies.fake;

    // The platform binds FakeConfig and FaultConfig with Jackson, by reflection.
    opens dev.egressproxies.fake;
    // The state file's private records are read and written by this module's own Jackson mapper.
    opens dev.egressproxies.fake.state to com.fasterxml.jackson.databind;

    provides dev.egressproxies.api.spi.ProviderFactory with dev.egressproxies.fake.FakeProviderFactory;
}

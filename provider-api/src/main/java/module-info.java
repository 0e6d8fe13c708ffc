/**
 * The egress-proxies provider contract: what a backend must do, how it fails, and how a
 * plugin hands the platform a backend. Depends on nothing but the JDK and the
 * OpenTelemetry API.
 */
module dev.egressproxies.api {
    requires transitive java.net.http;
    requires transitive io.opentelemetry.api;

    exports dev.egressproxies.api;
    exports dev.egressproxies.api.spi;
    exports dev.egressproxies.api.conformance;
}

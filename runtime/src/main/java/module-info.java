/**
 * The egressctl runtime: loads the configuration, builds the provider entries through the
 * registry, wires shared services with Dagger and drives everything from a picocli command line.
 * Imports no backend: backends are found on the module path at run time.
 */
module dev.egressproxies.runtime {
    requires dev.egressproxies.api;
    requires dev.egressproxies.registry;
    requires com.fasterxml.jackson.databind;
    requires com.fasterxml.jackson.dataformat.yaml;
    requires info.picocli;
    requires dagger;
    requires javax.inject;
    requires io.opentelemetry.api;
    // Only a run that exports telemetry uses the SDK; the launcher adds lib/telemetry for it alone.
    requires static io.opentelemetry.sdk;
    requires static io.opentelemetry.sdk.autoconfigure;
    requires org.slf4j;
    // Only 'egressctl serve' uses the HTTP server and the metrics library; the launcher adds lib/serve for it alone.
    requires static org.eclipse.jetty.server;
    requires static org.eclipse.jetty.http;
    requires static org.eclipse.jetty.io;
    requires static org.eclipse.jetty.util;
    requires static io.prometheus.metrics.core;
    requires static io.prometheus.metrics.model;
    requires static io.prometheus.writer.text;
    // serve handles SIGTERM and SIGINT itself (sun.misc.Signal), to finish its operations and exit 0.
    requires jdk.unsupported;
    // Only 'egressctl conformance' uses the suite; the launcher adds lib/conformance for it alone.
    requires static dev.egressproxies.conformance;

    exports dev.egressproxies.runtime;
    exports dev.egressproxies.runtime.cli;
    exports dev.egressproxies.runtime.output;
    exports dev.egressproxies.runtime.config;
    exports dev.egressproxies.runtime.apply;
    exports dev.egressproxies.runtime.wiring;
    exports dev.egressproxies.runtime.serve;
    exports dev.egressproxies.runtime.replicas;

    // picocli builds the subcommands reflectively; Jackson binds the desired-set records.
    opens dev.egressproxies.runtime.cli to info.picocli;
    opens dev.egressproxies.runtime.apply to com.fasterxml.jackson.databind;
}

package dev.egressproxies.isolation;

/** The conformance suite against the test plugin {@link IsolatedPlugins.Kind#OWN_JACKSON}. */
class OwnJacksonPluginConformanceTest extends IsolatedPluginConformanceTest {
    @Override
    IsolatedPlugins.Kind kind() {
        return IsolatedPlugins.Kind.OWN_JACKSON;
    }
}

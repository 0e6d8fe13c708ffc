package dev.egressproxies.isolation;

/** The conformance suite against the test plugin {@link IsolatedPlugins.Kind#GUAVA_NEW}. */
class GuavaNewPluginConformanceTest extends IsolatedPluginConformanceTest {
    @Override
    IsolatedPlugins.Kind kind() {
        return IsolatedPlugins.Kind.GUAVA_NEW;
    }
}

package dev.egressproxies.isolation;

/** The conformance suite against the test plugin {@link IsolatedPlugins.Kind#GUAVA_OLD}. */
class GuavaOldPluginConformanceTest extends IsolatedPluginConformanceTest {
    @Override
    IsolatedPlugins.Kind kind() {
        return IsolatedPlugins.Kind.GUAVA_OLD;
    }
}

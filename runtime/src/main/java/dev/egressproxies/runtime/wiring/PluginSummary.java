package dev.egressproxies.runtime.wiring;

/**
 * A backend plugin found: loaded, or installed but not loadable.
 *
 * @param type     the type name entries select it by; {@code ""} for one that could not be loaded
 * @param version  its version; {@code ""} for one that could not be loaded
 * @param location where it was loaded from, or the folder or jar that could not be
 * @param problem  why it could not be loaded and what to do; {@code ""} when it loaded
 */
public record PluginSummary(String type, String version, String location, String problem) {

    /** Whether the plugin loaded. */
    public boolean loaded() {
        return problem.isEmpty();
    }
}

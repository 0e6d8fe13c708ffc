package dev.egressproxies.runtime.wiring;

/**
 * A backend plugin found on the module or class path.
 *
 * @param type     the type name entries select it by
 * @param version  its version
 * @param location where it was loaded from
 */
public record PluginSummary(String type, String version, String location) {
}

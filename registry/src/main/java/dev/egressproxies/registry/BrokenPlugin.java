package dev.egressproxies.registry;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A plugin that could not be loaded: its folder (or jar) and why, with the fix.
 *
 * @param location the plugin's folder or jar
 * @param problem  what went wrong and what to do about it
 */
public record BrokenPlugin(Path location, String problem) {
    /** Requires both components. */
    public BrokenPlugin {
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(problem, "problem");
    }

    /** The sentence messages use: {@code plugin /opt/egressctl/plugins/acme could not be loaded: ...}. */
    public String describe() {
        return "plugin " + location + " could not be loaded: " + problem;
    }
}

package dev.egressproxies.runtime.config;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Where a configuration came from: a file, or the built-in default. Named in every error about it.
 *
 * @param file        the file, empty for the built-in default
 * @param description how to name it in messages
 */
public record ConfigSource(Optional<Path> file, String description) {
    /** The source of the built-in default configuration. */
    public static ConfigSource builtInDefault() {
        return new ConfigSource(Optional.empty(), "the built-in default configuration");
    }

    /** A configuration file. */
    public static ConfigSource file(Path path) {
        return new ConfigSource(Optional.of(path), path.toString());
    }

    @Override
    public String toString() {
        return description;
    }
}

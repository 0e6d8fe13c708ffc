package dev.egressproxies.runtime.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * A loaded configuration: where it came from and its provider entries, each still an untyped
 * tree ({@code name}, {@code type} and the type's settings) for the registry to bind.
 *
 * @param source    the file or the built-in default, for messages
 * @param providers the entries under {@code providers}, in file order
 */
public record Configuration(ConfigSource source, List<JsonNode> providers) {
    /** Copies the entry list. */
    public Configuration {
        providers = List.copyOf(providers);
    }
}

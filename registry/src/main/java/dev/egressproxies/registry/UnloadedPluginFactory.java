package dev.egressproxies.registry;

import com.fasterxml.jackson.databind.JsonNode;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.api.spi.ProviderContext;
import dev.egressproxies.api.spi.ProviderFactory;

/**
 * Stands in for the plugin of a type that no loaded plugin provides while some installed plugins
 * failed to load: the type may be theirs, so the entry is kept (its settings unchecked) and fails
 * every call with their problems, and the other entries work.
 */
final class UnloadedPluginFactory implements ProviderFactory<JsonNode> {
    private final String type;
    private final String problem;

    UnloadedPluginFactory(String type, String problem) {
        this.type = type;
        this.problem = problem;
    }

    @Override
    public String type() {
        return type;
    }

    @Override
    public String version() {
        return "unknown";
    }

    @Override
    public Class<JsonNode> configType() {
        return JsonNode.class;
    }

    @Override
    public Provider create(String entryName, JsonNode config, ProviderContext context) {
        throw new ProviderException(ErrorKind.PERMANENT, Operation.CONFIGURE, entryName, "", problem);
    }
}

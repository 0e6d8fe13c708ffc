package dev.egressproxies.example;

import dev.egressproxies.api.spi.ProviderContext;
import dev.egressproxies.api.spi.ProviderFactory;

/**
 * The example plugin's entry point, selected by {@code type: example}; builds an
 * {@link ExampleProvider} from an {@link ExampleConfig}.
 */
public final class ExampleProviderFactory implements ProviderFactory<ExampleConfig> {

    /** Creates the factory; ServiceLoader calls this. */
    public ExampleProviderFactory() {
    }

    @Override
    public String type() {
        return "example";
    }

    @Override
    public Class<ExampleConfig> configType() {
        return ExampleConfig.class;
    }

    @Override
    public ExampleProvider create(String entryName, ExampleConfig config, ProviderContext context) {
        return new ExampleProvider(entryName, config, context.clock());
    }
}

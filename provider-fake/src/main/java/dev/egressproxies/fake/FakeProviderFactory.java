package dev.egressproxies.fake;

import dev.egressproxies.api.spi.ProviderContext;
import dev.egressproxies.api.spi.ProviderFactory;
import dev.egressproxies.fake.state.FileInstanceStore;
import dev.egressproxies.fake.state.InMemoryInstanceStore;
import dev.egressproxies.fake.state.InstanceStore;
import java.nio.file.Path;

/**
 * The plugin entry point of the fake backend, selected by {@code type: fake}; builds a
 * {@link FakeProvider} from a {@link FakeConfig}.
 */
public final class FakeProviderFactory implements ProviderFactory<FakeConfig> {
    /** The type name configuration entries select this backend by. */
    public static final String TYPE = "fake";

    /** Creates the factory; ServiceLoader calls this. */
    public FakeProviderFactory() {
    }

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public Class<FakeConfig> configType() {
        return FakeConfig.class;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Builds without touching a state file: an unreadable or corrupt one fails the entry's
     * calls (and its preflight check) with a message naming the file, not the build, so other
     * entries keep working. Returns a {@link FakeProvider}, which tests may cast to for its hooks.
     *
     * @param config the settings; {@code null} means {@link FakeConfig#defaults()}
     */
    @Override
    public FakeProvider create(String entryName, FakeConfig config, ProviderContext context) {
        FakeConfig settings = config == null ? FakeConfig.defaults() : config;
        FaultInjector faults = new FaultInjector();
        settings.faultsByOperation().forEach(faults::configure);
        return new FakeProvider(entryName, settings, context.clock(), store(entryName, settings, context), faults);
    }

    private static InstanceStore store(String entryName, FakeConfig config, ProviderContext context) {
        if (config.stateFile() == null) {
            return new InMemoryInstanceStore(entryName);
        }
        Path stateFile = config.stateFile().isAbsolute()
                ? config.stateFile()
                : context.stateDirectory().resolve(config.stateFile());
        return FileInstanceStore.open(entryName, stateFile);
    }
}

package dev.egressproxies.example;

import dev.egressproxies.api.Placement;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.conformance.Capability;
import dev.egressproxies.api.conformance.ConformanceProfile;
import dev.egressproxies.api.spi.ProviderContext;
import dev.egressproxies.api.spi.ProviderFactory;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

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

    /**
     * How the conformance suite checks an entry, in JUnit tests and in {@code egressctl conformance}:
     * instances reach RUNNING after the boot delay, and the provider can plant unmanaged instances
     * and stop instances; it never blocks, so it has no hang or unreadable-zone hooks.
     */
    @Override
    public Optional<ConformanceProfile> conformanceProfile(String entryName, ExampleConfig config, Provider provider,
                                                           ProviderContext context) {
        return Optional.of(new ConformanceProfile(
                Set.of(Capability.REACHES_RUNNING, Capability.PLANTS_UNMANAGED_INSTANCES, Capability.STOPS_INSTANCES),
                List.of(new Placement(config.zone(), config.machineTypes().iterator().next(),
                        config.images().iterator().next())),
                config.zone() + "/not-an-example-id", "i-0000000000000000", config.bootDelay().plus(Duration.ofSeconds(5)),
                new ExampleConformanceHarness((ExampleProvider) provider)));
    }
}

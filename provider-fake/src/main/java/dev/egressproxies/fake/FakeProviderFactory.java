package dev.egressproxies.fake;

import dev.egressproxies.api.Placement;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.conformance.Capability;
import dev.egressproxies.api.conformance.ConformanceHarness;
import dev.egressproxies.api.conformance.ConformanceProfile;
import dev.egressproxies.api.spi.ProviderContext;
import dev.egressproxies.api.spi.ProviderFactory;
import dev.egressproxies.fake.state.FileInstanceStore;
import dev.egressproxies.fake.state.InMemoryInstanceStore;
import dev.egressproxies.fake.state.OperationLog;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The plugin entry point of the fake backend, selected by {@code type: fake}; builds a
 * {@link FakeProvider} from a {@link FakeConfig}.
 */
public final class FakeProviderFactory implements ProviderFactory<FakeConfig> {
    /** The type name configuration entries select this backend by. */
    public static final String TYPE = "fake";
    /** The longest boot a conformance run waits for; an entry booting longer never reaches RUNNING in it. */
    private static final Duration LONGEST_AWAITED_BOOT = Duration.ofMinutes(1);
    private static final Duration BOOT_MARGIN = Duration.ofSeconds(10);
    /** How long a run watches an instance of a slow-booting entry stay PROVISIONING. */
    private static final Duration PROVISIONING_WATCH = Duration.ofSeconds(1);

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
        FakeConfig settings = settingsOf(config);
        FaultInjector faults = new FaultInjector();
        settings.faultsByOperation().forEach(faults::configure);
        if (settings.stateFile() == null) {
            return new FakeProvider(entryName, settings, context.clock(), new InMemoryInstanceStore(entryName),
                    OperationLog.NONE, faults);
        }
        FileInstanceStore store = FileInstanceStore.open(entryName, stateFileOf(settings, context));
        OperationLog log = settings.operationLog() ? store.operationLog(context.clock()) : OperationLog.NONE;
        return new FakeProvider(entryName, settings, context.clock(), store, log, faults);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Every hook the fake's fault injector offers; one placement per zone (machine types and
     * images in turn); instances that reach RUNNING unless the boot delay is longer than a minute;
     * with a state file, a second entry ({@code ENTRY-other}) on the same file.
     */
    @Override
    public Optional<ConformanceProfile> conformanceProfile(String entryName, FakeConfig config, Provider provider,
                                                           ProviderContext context) {
        FakeConfig settings = settingsOf(config);
        Set<Capability> capabilities = EnumSet.of(Capability.PLANTS_UNMANAGED_INSTANCES, Capability.STOPS_INSTANCES,
                Capability.HANGS_ON_DEMAND, Capability.MAKES_ZONES_UNREADABLE, Capability.MANAGES_IMAGES);
        boolean boots = settings.bootDelay().compareTo(LONGEST_AWAITED_BOOT) <= 0;
        if (boots) {
            capabilities.add(Capability.REACHES_RUNNING);
        }
        if (settings.zones().size() > 1) {
            capabilities.add(Capability.MULTIPLE_ZONES);
            capabilities.add(Capability.PLACES_INSTANCES);
        }
        Supplier<ConformanceHarness.Entry> anotherEntry = null;
        if (settings.stateFile() != null) {
            capabilities.add(Capability.BUILDS_ANOTHER_ENTRY);
            String other = entryName + "-other";
            anotherEntry = () -> new ConformanceHarness.Entry(create(other, settings, context), other);
        }
        List<Placement> placements = new ArrayList<>();
        for (int index = 0; index < settings.zones().size(); index++) {
            placements.add(new Placement(settings.zones().get(index),
                    settings.machineTypes().get(index % settings.machineTypes().size()),
                    settings.images().get(index % settings.images().size())));
        }
        return Optional.of(new ConformanceProfile(capabilities, placements, "not-a-fake-id",
                settings.zones().get(0) + "/never-created",
                boots ? settings.bootDelay().plus(BOOT_MARGIN) : PROVISIONING_WATCH,
                new FakeConformanceHarness((FakeProvider) provider, anotherEntry)));
    }

    /** The entry's settings; an entry that gives none has {@link FakeConfig#defaults()}. */
    private static FakeConfig settingsOf(FakeConfig config) {
        return config == null ? FakeConfig.defaults() : config;
    }

    /** The entry's state file, a relative one resolved in the platform's state directory. */
    private static Path stateFileOf(FakeConfig config, ProviderContext context) {
        return config.stateFile().isAbsolute()
                ? config.stateFile()
                : context.stateDirectory().resolve(config.stateFile());
    }
}

package dev.egressproxies.runtime.cli;

import dev.egressproxies.api.Placement;
import dev.egressproxies.api.conformance.Capability;
import dev.egressproxies.api.conformance.ConformanceHarness;
import dev.egressproxies.api.conformance.ConformanceProfile;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code egressctl conformance ENTRY}: runs the provider conformance suite against a configured
 * entry, with the capabilities and hooks its plugin declares (or those given here), and deletes
 * every instance the run made at its end, also when it is interrupted.
 */
@Command(name = "conformance", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Runs the provider conformance suite against a configured entry.",
            "Creates, inspects and deletes test instances named conformance-RUN-...; everything the run made"
                + " is deleted at its end, also on Ctrl-C. Exits 0 only when every case passed."})
final class ConformanceCommand implements Callable<Integer> {
    private static final Duration DEFAULT_STATE_TIMEOUT = Duration.ofSeconds(30);
    private static final String DEFAULT_MALFORMED_ID = "not a valid id";
    private static final Set<Capability> HOOKS = EnumSet.of(Capability.PLANTS_UNMANAGED_INSTANCES,
            Capability.STOPS_INSTANCES, Capability.HANGS_ON_DEMAND, Capability.MAKES_ZONES_UNREADABLE,
            Capability.BUILDS_ANOTHER_ENTRY);

    @ParentCommand
    RootCommand root;

    @Parameters(paramLabel = "ENTRY", description = "The configured entry to check.")
    String entry;

    @Option(names = "--placement", paramLabel = "ZONE/MACHINE-TYPE/IMAGE",
            description = "Where the suite creates (repeatable; the first is where most cases create). Replaces the"
                    + " placements the entry's plugin proposes.")
    List<String> placements = new ArrayList<>();

    @Option(names = "--capability", paramLabel = "CAPABILITY",
            description = "Declares a capability the plugin does not (repeatable): REACHES_RUNNING, MULTIPLE_ZONES or"
                    + " OPEN_IMAGE_NAMESPACE. Hook capabilities come only with the plugin's hooks.")
    List<Capability> capabilities = new ArrayList<>();

    @Option(names = "--unknown-id", paramLabel = "ID", description = "A well-formed ID that no instance has.")
    String unknownId;

    @Option(names = "--malformed-id", paramLabel = "ID", description = "An ID the backend can tell is none of its IDs.")
    String malformedId;

    @Option(names = "--state-timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "How long an instance may take to reach a state (default: the plugin's, else 30s).")
    Duration stateTimeout;

    @Option(names = "--call-timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            defaultValue = "60s", description = "The deadline of calls that should succeed (default ${DEFAULT-VALUE}).")
    Duration callTimeout;

    @Option(names = "--junit-xml", paramLabel = "FILE", description = "Also writes a JUnit XML report to FILE.")
    Path junitXml;

    @Override
    public Integer call() {
        return new EntryConformanceRun(root.session(), entry, this::profile, callTimeout, Optional.ofNullable(junitXml))
                .run();
    }

    /** The plugin's profile with the options applied; without one, the options alone. */
    private ConformanceProfile profile(Optional<ConformanceProfile> declared) {
        Set<Capability> declaredCapabilities = declared.map(ConformanceProfile::capabilities).orElse(Set.of());
        for (Capability capability : capabilities) {
            if (HOOKS.contains(capability) && !declaredCapabilities.contains(capability)) {
                throw new IllegalArgumentException("--capability " + capability + " needs a hook the plugin of entry '"
                        + entry + "' does not offer; leave it out");
            }
        }
        List<Placement> chosen = placements.isEmpty()
                ? declared.map(ConformanceProfile::placements).orElse(List.of())
                : placements.stream().map(ConformanceCommand::placement).toList();
        if (chosen.isEmpty()) {
            throw new IllegalArgumentException("the plugin of entry '" + entry + "' proposes no placements: name"
                    + " where the suite may create with --placement ZONE/MACHINE-TYPE/IMAGE");
        }
        String unknown = unknownId != null ? unknownId : declared.map(ConformanceProfile::unknownId).orElseThrow(() ->
                new IllegalArgumentException("the plugin of entry '" + entry + "' gives no example of a well-formed ID"
                        + " that no instance has: give one with --unknown-id"));
        EnumSet<Capability> all = EnumSet.noneOf(Capability.class);
        all.addAll(declaredCapabilities);
        all.addAll(capabilities);
        return new ConformanceProfile(all, chosen,
                malformedId != null ? malformedId : declared.map(ConformanceProfile::malformedId).orElse(DEFAULT_MALFORMED_ID),
                unknown,
                stateTimeout != null ? stateTimeout : declared.map(ConformanceProfile::stateTimeout).orElse(DEFAULT_STATE_TIMEOUT),
                declared.map(ConformanceProfile::harness).orElse(ConformanceHarness.NONE));
    }

    private static Placement placement(String text) {
        String[] parts = text.split("/", -1);
        if (parts.length != 3) {
            throw new IllegalArgumentException("--placement '" + text + "' is not ZONE/MACHINE-TYPE/IMAGE (an empty zone"
                    + " is written /MACHINE-TYPE/IMAGE)");
        }
        return new Placement(parts[0], parts[1], parts[2]);
    }
}

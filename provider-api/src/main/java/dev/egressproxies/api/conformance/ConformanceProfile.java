package dev.egressproxies.api.conformance;

import dev.egressproxies.api.Placement;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * How {@code egressctl conformance} checks one configured entry: what the backend can do there,
 * where the suite may create instances, two example IDs, how long an instance may take to reach a
 * state, and the hooks the backend offers. A plugin returns it from
 * {@link dev.egressproxies.api.spi.ProviderFactory#conformanceProfile}.
 *
 * <p>The profile and its harness are main code of the plugin, shipped in its jar: during
 * {@code egressctl conformance} they run against an operator's real entry, on the provider the
 * platform built for it. A plugin's own test reaches the same profile by calling
 * {@code conformanceProfile} on its factory with the provider it built, and hands it to the
 * conformance kit's target ({@code ConformanceTarget.builder(provider, entry).profile(profile)}).
 *
 * @param capabilities what the entry and {@code harness} can do; every other capability is
 *                     declared lacking, and the suite asserts the lack
 * @param placements   valid placements, the first being where most cases create; one per zone
 *                     when {@link Capability#MULTIPLE_ZONES} is declared
 * @param malformedId  an ID the backend can tell is not one of its IDs
 * @param unknownId    a well-formed ID that no instance has
 * @param stateTimeout how long an instance may take to reach a state, and how long the suite
 *                     watches one that must stay put
 * @param harness      the hooks behind the declared hook capabilities; {@link ConformanceHarness#NONE}
 *                     when there are none
 * @since 1.0.0
 */
public record ConformanceProfile(Set<Capability> capabilities, List<Placement> placements, String malformedId,
                                 String unknownId, Duration stateTimeout, ConformanceHarness harness) {
    /**
     * Copies the collections and requires every component; at least one placement.
     *
     * @since 1.0.0
     */
    public ConformanceProfile {
        capabilities = Set.copyOf(capabilities);
        placements = List.copyOf(placements);
        Objects.requireNonNull(malformedId, "malformedId");
        Objects.requireNonNull(unknownId, "unknownId");
        Objects.requireNonNull(stateTimeout, "stateTimeout");
        Objects.requireNonNull(harness, "harness");
        if (placements.isEmpty()) {
            throw new IllegalArgumentException("placements: name at least one placement the suite may create in");
        }
    }
}

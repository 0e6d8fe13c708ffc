package dev.egressproxies.conformance;

import dev.egressproxies.api.Placement;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.conformance.Capability;
import dev.egressproxies.api.conformance.ConformanceHarness;
import dev.egressproxies.api.conformance.ConformanceProfile;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The backend a conformance run checks: a configured provider with its entry name, what it can
 * do, where it may place instances, and how long the suite waits for it.
 *
 * <p>Built with {@link #builder(Provider, String)}; the builder rejects declarations that
 * contradict each other, such as {@link Capability#MULTIPLE_ZONES} with placements in one zone.
 *
 * @since 1.0.0
 */
public final class ConformanceTarget {
    private final Provider provider;
    private final String entryName;
    private final Set<Capability> capabilities;
    private final List<Placement> placements;
    private final String malformedId;
    private final String unknownId;
    private final Duration stateTimeout;
    private final Duration callTimeout;
    private final Duration clockSkew;
    private final ConformanceHarness harness;
    private final String namePrefix;

    private ConformanceTarget(Builder builder) {
        this.provider = builder.provider;
        this.entryName = builder.entryName;
        this.capabilities = Set.copyOf(builder.capabilities);
        this.placements = List.copyOf(builder.placements);
        this.malformedId = builder.malformedId;
        this.unknownId = builder.unknownId;
        this.stateTimeout = builder.stateTimeout;
        this.callTimeout = builder.callTimeout;
        this.clockSkew = builder.clockSkew;
        this.harness = builder.harness;
        this.namePrefix = builder.namePrefix;
    }

    /**
     * Starts describing a target.
     *
     * @param provider  the provider under test, built from configuration for this test alone; the
     *                  suite closes it after the test
     * @param entryName the configured name of its entry, which every error must carry
     * @since 1.0.0
     */
    public static Builder builder(Provider provider, String entryName) {
        return new Builder(provider, entryName);
    }

    /**
     * The provider under test.
     *
     * @since 1.0.0
     */
    public Provider provider() {
        return provider;
    }

    /**
     * The configured name of the provider's entry.
     *
     * @since 1.0.0
     */
    public String entryName() {
        return entryName;
    }

    /**
     * Whether the target declared the capability.
     *
     * @since 1.0.0
     */
    public boolean has(Capability capability) {
        return capabilities.contains(capability);
    }

    /**
     * The declared capabilities.
     *
     * @since 1.0.0
     */
    public Set<Capability> capabilities() {
        return capabilities;
    }

    /**
     * The valid placements, the first being the one most tests use.
     *
     * @since 1.0.0
     */
    public List<Placement> placements() {
        return placements;
    }

    /**
     * The placement most tests create in.
     *
     * @since 1.0.0
     */
    public Placement primaryPlacement() {
        return placements.get(0);
    }

    /**
     * The first placement in a zone other than the primary one's, when the target has one.
     *
     * @since 1.0.0
     */
    public Placement placementInAnotherZone() {
        return placements.stream()
                .filter(placement -> !placement.zone().equals(primaryPlacement().zone()))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("the target names placements in one zone only"));
    }

    /**
     * An ID that the backend can tell is not one of its IDs.
     *
     * @since 1.0.0
     */
    public String malformedId() {
        return malformedId;
    }

    /**
     * A well-formed ID that no instance has.
     *
     * @since 1.0.0
     */
    public String unknownId() {
        return unknownId;
    }

    /**
     * How long an instance may take to reach a state, and how long the suite watches one.
     *
     * @since 1.0.0
     */
    public Duration stateTimeout() {
        return stateTimeout;
    }

    /**
     * The deadline the suite gives calls that are expected to succeed.
     *
     * @since 1.0.0
     */
    public Duration callTimeout() {
        return callTimeout;
    }

    /**
     * How far the backend's clock may be from the test's clock.
     *
     * @since 1.0.0
     */
    public Duration clockSkew() {
        return clockSkew;
    }

    /**
     * The hooks for what no provider call can do.
     *
     * @since 1.0.0
     */
    public ConformanceHarness harness() {
        return harness;
    }

    /**
     * What every instance name the suite makes starts with; empty unless set.
     *
     * @since 1.0.0
     */
    public String namePrefix() {
        return namePrefix;
    }

    /**
     * Describes a {@link ConformanceTarget}; only the provider, entry name, a placement and both example IDs are required.
     *
     * @since 1.0.0
     */
    public static final class Builder {
        /** Lower-case letters, digits and hyphens, starting with a letter or digit: the start of a DNS label. */
        private static final Pattern NAME_PREFIX = Pattern.compile("([a-z0-9][a-z0-9-]*)?");
        /** Long enough for a namespace such as {@code egress-it-}, short enough to leave room in 63 characters. */
        private static final int MAX_NAME_PREFIX_LENGTH = 24;

        private final Provider provider;
        private final String entryName;
        private final Set<Capability> capabilities = EnumSet.noneOf(Capability.class);
        private final Set<Placement> placements = new LinkedHashSet<>();
        private String malformedId;
        private String unknownId;
        private Duration stateTimeout = Duration.ofSeconds(30);
        private Duration callTimeout = Duration.ofSeconds(60);
        private Duration clockSkew = Duration.ofSeconds(2);
        private ConformanceHarness harness = ConformanceHarness.NONE;
        private String namePrefix = "";

        private Builder(Provider provider, String entryName) {
            this.provider = Objects.requireNonNull(provider, "provider");
            this.entryName = Objects.requireNonNull(entryName, "entryName");
        }

        /**
         * Declares what a plugin's {@link ConformanceProfile} says of its entry: its capabilities,
         * placements, example IDs, state timeout and harness.
         *
         * @since 1.0.0
         */
        public Builder profile(ConformanceProfile profile) {
            capabilities.addAll(profile.capabilities());
            profile.placements().forEach(this::placement);
            return malformedId(profile.malformedId()).unknownId(profile.unknownId())
                    .stateTimeout(profile.stateTimeout()).harness(profile.harness());
        }

        /**
         * Declares capabilities the target has; every other one is declared lacking.
         *
         * @since 1.0.0
         */
        public Builder capabilities(Capability... declared) {
            capabilities.addAll(Arrays.asList(declared));
            return this;
        }

        /**
         * Adds a valid placement; the first one added is where most tests create.
         *
         * @since 1.0.0
         */
        public Builder placement(Placement placement) {
            placements.add(Objects.requireNonNull(placement, "placement"));
            return this;
        }

        /**
         * Sets an ID the backend can tell is malformed, for example one without its separator.
         *
         * @since 1.0.0
         */
        public Builder malformedId(String id) {
            this.malformedId = Objects.requireNonNull(id, "malformedId");
            return this;
        }

        /**
         * Sets a well-formed ID that no instance has, for example one naming a never-created instance.
         *
         * @since 1.0.0
         */
        public Builder unknownId(String id) {
            this.unknownId = Objects.requireNonNull(id, "unknownId");
            return this;
        }

        /**
         * Sets how long an instance may take to reach a state; 30 seconds unless set.
         *
         * @since 1.0.0
         */
        public Builder stateTimeout(Duration timeout) {
            this.stateTimeout = positive(timeout, "stateTimeout");
            return this;
        }

        /**
         * Sets the deadline for calls that should succeed; 60 seconds unless set.
         *
         * @since 1.0.0
         */
        public Builder callTimeout(Duration timeout) {
            this.callTimeout = positive(timeout, "callTimeout");
            return this;
        }

        /**
         * Sets how far the backend's clock may be off the test's; 2 seconds unless set.
         *
         * @since 1.0.0
         */
        public Builder clockSkew(Duration skew) {
            Objects.requireNonNull(skew, "clockSkew");
            if (skew.isNegative()) {
                throw new IllegalArgumentException("clockSkew must not be negative");
            }
            this.clockSkew = skew;
            return this;
        }

        /**
         * Sets the harness that implements the hooks the declared capabilities need.
         *
         * @since 1.0.0
         */
        public Builder harness(ConformanceHarness harness) {
            this.harness = Objects.requireNonNull(harness, "harness");
            return this;
        }

        /**
         * Sets what every instance name the suite makes starts with, for backends whose instances
         * share a host with other things and are cleaned by prefix (a test stack that removes
         * {@code egress-it-*} domains, for example); empty unless set. Names keep their random
         * token after the prefix, and invalid names stay invalid for the reason the case intends.
         *
         * @param prefix lower-case letters, digits and hyphens, starting with a letter or digit,
         *               at most 24 characters
         * @since 1.0.0
         */
        public Builder namePrefix(String prefix) {
            Objects.requireNonNull(prefix, "namePrefix");
            if (prefix.length() > MAX_NAME_PREFIX_LENGTH || !NAME_PREFIX.matcher(prefix).matches()) {
                throw new IllegalArgumentException("namePrefix '" + prefix + "' must be at most "
                        + MAX_NAME_PREFIX_LENGTH + " lower-case letters, digits and hyphens, starting with a"
                        + " letter or digit");
            }
            this.namePrefix = prefix;
            return this;
        }

        /**
         * Builds the target.
         *
         * @throws IllegalStateException when something required is missing or the declarations
         *                               contradict each other
         * @since 1.0.0
         */
        public ConformanceTarget build() {
            List<String> problems = new ArrayList<>();
            if (placements.isEmpty()) {
                problems.add("name at least one valid placement");
            }
            if (malformedId == null) {
                problems.add("give a malformed ID example (malformedId)");
            }
            if (unknownId == null) {
                problems.add("give a well-formed ID that no instance has (unknownId)");
            }
            long zones = placements.stream().map(Placement::zone).distinct().count();
            if (capabilities.contains(Capability.MULTIPLE_ZONES) && zones < 2) {
                problems.add("MULTIPLE_ZONES is declared: name placements in at least two zones");
            }
            if (!capabilities.contains(Capability.MULTIPLE_ZONES) && zones > 1) {
                problems.add("placements name " + zones + " zones: declare MULTIPLE_ZONES");
            }
            if (!problems.isEmpty()) {
                throw new IllegalStateException("conformance target for entry '" + entryName + "' is incomplete: "
                        + String.join("; ", problems));
            }
            return new ConformanceTarget(this);
        }

        private static Duration positive(Duration duration, String what) {
            Objects.requireNonNull(duration, what);
            if (duration.isNegative() || duration.isZero()) {
                throw new IllegalArgumentException(what + " must be positive");
            }
            return duration;
        }
    }
}

package dev.egressproxies.api;

/**
 * The provider call during which a {@link ProviderException} happened.
 *
 * @since 1.0.0
 */
public enum Operation {
    /**
     * {@link Provider#create}.
     *
     * @since 1.0.0
     */
    CREATE("create"),
    /**
     * {@link Provider#get}.
     *
     * @since 1.0.0
     */
    GET("get"),
    /**
     * {@link Provider#delete}.
     *
     * @since 1.0.0
     */
    DELETE("delete"),
    /**
     * {@link Provider#listManaged}.
     *
     * @since 1.0.0
     */
    LIST_MANAGED("listManaged"),
    /**
     * {@link Provider#preflight}.
     *
     * @since 1.0.0
     */
    PREFLIGHT("preflight"),
    /**
     * Building a provider from its configuration entry.
     *
     * @since 1.0.0
     */
    CONFIGURE("configure"),
    /**
     * {@link Provider#place}.
     *
     * @since 1.1.0
     */
    PLACE("place"),
    /**
     * {@link Provider#cordon} and {@link Provider#cordonedZones}.
     *
     * @since 1.1.0
     */
    CORDON("cordon"),
    /**
     * {@link Provider#images}.
     *
     * @since 1.2.0
     */
    IMAGES("images"),
    /**
     * {@link Provider#pullImage}.
     *
     * @since 1.2.0
     */
    PULL_IMAGE("pullImage"),
    /**
     * {@link Provider#pruneImages}.
     *
     * @since 1.2.0
     */
    PRUNE_IMAGES("pruneImages");

    private final String displayName;

    Operation(String displayName) {
        this.displayName = displayName;
    }

    /**
     * The name used in messages, spelled as the method it stands for.
     *
     * @since 1.0.0
     */
    public String displayName() {
        return displayName;
    }

    @Override
    public String toString() {
        return displayName;
    }
}

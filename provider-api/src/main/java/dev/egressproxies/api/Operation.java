package dev.egressproxies.api;

/**
 * The provider call during which a {@link ProviderException} happened.
 */
public enum Operation {
    /** {@link Provider#create}. */
    CREATE("create"),
    /** {@link Provider#get}. */
    GET("get"),
    /** {@link Provider#delete}. */
    DELETE("delete"),
    /** {@link Provider#listManaged}. */
    LIST_MANAGED("listManaged"),
    /** {@link Provider#preflight}. */
    PREFLIGHT("preflight"),
    /** Building a provider from its configuration entry. */
    CONFIGURE("configure");

    private final String displayName;

    Operation(String displayName) {
        this.displayName = displayName;
    }

    /** The name used in messages, spelled as the method it stands for. */
    public String displayName() {
        return displayName;
    }

    @Override
    public String toString() {
        return displayName;
    }
}

package dev.egressproxies.runtime.output;

/**
 * An instance ID as {@code egressctl} prints and accepts it: the provider entry, a slash, and the
 * provider's own ID ({@code kvm-a/host-1/demo}), so {@code get} and {@code delete} can route an ID
 * to its entry without the user naming the entry.
 *
 * @param entry      the provider entry's name (entry names never contain a slash)
 * @param providerId the ID the entry's provider returned
 */
public record QualifiedId(String entry, String providerId) {

    /**
     * Splits an ID at its first slash.
     *
     * @throws IllegalArgumentException when there is no entry part or no provider part
     */
    public static QualifiedId parse(String text) {
        int slash = text.indexOf('/');
        if (slash <= 0 || slash == text.length() - 1) {
            throw new IllegalArgumentException("'" + text + "' is not an instance ID: use the ID that"
                    + " create or list printed, ENTRY/PROVIDER-ID (for example fake/zone-a/demo)");
        }
        return new QualifiedId(text.substring(0, slash), text.substring(slash + 1));
    }

    @Override
    public String toString() {
        return entry + "/" + providerId;
    }
}

package dev.egressproxies.api;

import java.util.Objects;

/**
 * Where a backend puts an instance whose placement names no zone, and why: the answer of
 * {@link Provider#place}.
 *
 * @param zone   one of the provider's {@linkplain Provider#zones() zones}, or {@code ""} when the
 *               backend leaves the choice to create (it has one zone, or cannot choose ahead)
 * @param reason why that zone, in a line a person reads ({@code "fewest proxies of this entry (1;
 *               hb has 2), 20.1 GiB memory and 37.0 GiB pool space free"}); {@code "named"} for a
 *               placement that named its zone; may be empty
 * @since 1.1.0
 */
public record ZoneChoice(String zone, String reason) {

    /**
     * Checks both are present.
     *
     * @since 1.1.0
     */
    public ZoneChoice {
        Objects.requireNonNull(zone, "zone");
        Objects.requireNonNull(reason, "reason");
    }
}

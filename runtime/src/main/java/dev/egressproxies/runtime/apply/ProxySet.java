package dev.egressproxies.runtime.apply;

import java.util.List;

/**
 * The desired set of proxies that {@code egressctl apply -f FILE} converges to.
 *
 * @param providers entries to converge even when no proxy below names them (to empty an entry);
 *                  entries that a proxy names are converged anyway
 * @param proxies   every proxy that should exist; managed instances of the converged entries
 *                  that are not listed here are deleted
 */
public record ProxySet(List<String> providers, List<DesiredProxy> proxies) {
    /** Absent lists are empty. */
    public ProxySet {
        providers = providers == null ? List.of() : List.copyOf(providers);
        proxies = proxies == null ? List.of() : List.copyOf(proxies);
    }
}

package dev.egressproxies.runtime.apply;

import java.util.List;
import java.util.Set;

/**
 * A checked desired set: the entries to converge and the proxies they should hold.
 *
 * @param entries the entries to converge, in first-mention order
 * @param proxies the proxies, validated
 */
public record DesiredState(Set<String> entries, List<ResolvedProxy> proxies) {
}

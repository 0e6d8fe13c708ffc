package dev.egressproxies.runtime.serve;

import java.time.Instant;
import java.util.List;

/**
 * One provider entry as {@code serve} reconciles it.
 *
 * @param name           the entry's name
 * @param type           its backend type
 * @param managed        how many managed instances the last pass saw (in the zones that answered)
 * @param desired        how many proxies the desired set gives it
 * @param lastPass       when its last reconcile pass ended, or null before the first
 * @param pendingDeletes the qualified IDs of deletes held back until an operator confirms them
 * @param hosts          the link health of each zone
 */
public record EntryView(String name, String type, int managed, int desired, Instant lastPass,
                        List<String> pendingDeletes, List<HostView> hosts) {
    /** Copies the lists. */
    public EntryView {
        pendingDeletes = List.copyOf(pendingDeletes);
        hosts = List.copyOf(hosts);
    }
}

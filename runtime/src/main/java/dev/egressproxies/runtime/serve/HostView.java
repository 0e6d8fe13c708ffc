package dev.egressproxies.runtime.serve;

import java.time.Instant;

/**
 * The link health of one zone (for the KVM backends, one hypervisor host) of an entry, from the
 * last time {@code serve} listed it.
 *
 * @param zone      the zone
 * @param up        whether the last listing succeeded
 * @param checkedAt when it was last listed, or null before the first listing
 * @param downSince when it stopped answering, or null while up
 * @param error     why the last listing failed, or null
 * @param cordoned  whether the host is cordoned: no new proxy lands there
 */
public record HostView(String zone, boolean up, Instant checkedAt, Instant downSince, String error,
                       boolean cordoned) {
}

package dev.egressproxies.runtime.apply;

/**
 * One proxy of a desired set, as written in the file that {@code egressctl apply} reads.
 *
 * @param name          the instance name (a DNS label)
 * @param provider      the provider entry it lives in
 * @param zone          the zone, or empty when the entry has one
 * @param machineType   the machine type
 * @param image         the image
 * @param uid           the owner's UID; a new random one per create when absent
 * @param cloudInit     inline cloud-init user-data, or absent
 * @param cloudInitFile a file holding the user-data, relative to the set's file; not with cloudInit
 */
public record DesiredProxy(String name, String provider, String zone, String machineType, String image,
                           String uid, String cloudInit, String cloudInitFile) {
}

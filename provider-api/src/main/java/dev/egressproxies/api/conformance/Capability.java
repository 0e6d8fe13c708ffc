package dev.egressproxies.api.conformance;

/**
 * Something a backend, or the test harness around it, can do that the contract does not demand of
 * every backend.
 *
 * <p>A conformance target (the kit's {@code ConformanceTarget}, or a plugin's
 * {@link ConformanceProfile}) declares the capabilities it has. The suite runs the matching cases
 * in full; for each capability a target lacks, the suite asserts the lack instead (the
 * alternative behaviour the contract allows, or that the harness indeed refuses the hook), so a
 * missing capability shows up as a checked declaration and never as a silently skipped test.
 *
 * @since 1.0.0
 */
public enum Capability {
    /**
     * Instances become {@code RUNNING} with an address within the target's state timeout.
     * Lacking it, the suite asserts that instances stay {@code PROVISIONING} with an empty IP,
     * which the contract allows for a backend that cannot learn addresses (a VM without a guest
     * agent, a sandbox without ARP).
     *
     * @since 1.0.0
     */
    REACHES_RUNNING,
    /**
     * The entry has two or more zones, and the target names placements in at least two of them.
     * Lacking it, the suite asserts that the entry has one zone, which an empty zone selects.
     *
     * @since 1.0.0
     */
    MULTIPLE_ZONES,
    /**
     * The harness can plant an instance this platform did not create ({@link ConformanceHarness#plantUnmanaged}).
     *
     * @since 1.0.0
     */
    PLANTS_UNMANAGED_INSTANCES,
    /**
     * The harness can stop an instance behind the provider's back ({@link ConformanceHarness#stop}).
     *
     * @since 1.0.0
     */
    STOPS_INSTANCES,
    /**
     * The harness can make the backend hang on an operation ({@link ConformanceHarness#hang}).
     *
     * @since 1.0.0
     */
    HANGS_ON_DEMAND,
    /**
     * The harness can make a zone unreadable ({@link ConformanceHarness#makeZoneUnreadable}).
     *
     * @since 1.0.0
     */
    MAKES_ZONES_UNREADABLE,
    /**
     * The harness can build a second entry of the target's type on the same infrastructure
     * ({@link ConformanceHarness#anotherEntry}), so the suite checks that entries sharing it keep
     * to their own instances.
     *
     * @since 1.0.0
     */
    BUILDS_ANOTHER_ENTRY,
    /**
     * The backend's images are an open namespace: it accepts any well-formed image reference (a URL,
     * or a name it resolves at create time), so no name is unknown before it is fetched. The suite
     * then asserts that a malformed image is PERMANENT and creates nothing; lacking it, that an
     * unknown image name is. Malformed means no reference at all: empty, blank, or holding
     * whitespace or control characters (the suite tries {@code ""}, {@code "  "} and a
     * reference with a space, a newline and a NUL character in it); anything else is a reference the
     * backend resolves when create fetches it.
     *
     * @since 1.0.0
     */
    OPEN_IMAGE_NAMESPACE,
    /**
     * With {@link #MULTIPLE_ZONES}: the backend chooses a zone for a placement that names none
     * ({@link dev.egressproxies.api.Provider#place}, and create of such a request). The suite then
     * asserts that such a create makes one instance in one of the zones, that a second create of
     * the name returns it, and that place answers in the zones; lacking it, that such a create is
     * PERMANENT.
     *
     * @since 1.1.0
     */
    PLACES_INSTANCES,
    /**
     * The backend keeps base images that it reports, pulls and prunes ({@link
     * dev.egressproxies.api.Provider#images}, {@link dev.egressproxies.api.Provider#pullImage} and
     * {@link dev.egressproxies.api.Provider#pruneImages}). The suite then asserts that an instance's
     * base is listed with the instance as its user, that prune never deletes a base in use, that a
     * dry run deletes nothing, and that a pull is idempotent; lacking it, that the three are
     * PERMANENT.
     *
     * @since 1.2.0
     */
    MANAGES_IMAGES
}

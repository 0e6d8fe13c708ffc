package dev.egressproxies.api;

import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * A backend that creates, inspects and deletes egress-proxy instances: one configured provider
 * entry, built by its plugin's {@link dev.egressproxies.api.spi.ProviderFactory}.
 *
 * <h2>Errors</h2>
 * Every method fails only with {@link ProviderException}, whose {@link ErrorKind kind} tells the
 * caller whether to retry and whose operation, entry and instance ID say where it failed.
 *
 * <h2>Deadlines and cancellation</h2>
 * Every method takes a {@link Deadline}. When it passes, or when the calling thread is interrupted,
 * the method returns within about a second, even if the backend it waits on hangs, by throwing a
 * {@link ErrorKind#TRANSIENT} {@link ProviderException} (see
 * {@link ProviderException#deadlineExceeded} and {@link ProviderException#interrupted}; the
 * interrupt flag stays set). Whatever a call abandoned midway is left in a state the next call
 * repairs: nothing is lost and nothing leaks.
 *
 * <h2>Threads</h2>
 * Implementations are safe for concurrent use by many threads.
 *
 * @since 1.0.0
 */
public interface Provider extends AutoCloseable {

    /**
     * Makes the named instance exist and run, and returns its provider ID.
     *
     * <p>Idempotent: the same name never yields a second instance. An existing stopped instance is
     * only started; a name held by an instance this platform did not create, or created through
     * another entry, is PERMANENT and changes nothing; what an interrupted create left behind is
     * reused when it is known to be complete and rebuilt when it may be truncated. Implementations call
     * {@link #validate(CreateRequest)} (which calls {@link CreateRequest#validate(String)}) before
     * any I/O, so a bad request is {@link ErrorKind#PERMANENT} and creates nothing.
     *
     * <p>One name, one instance per entry: a name is unique across all of the entry's zones. A
     * create whose name exists in another zone of this entry is PERMANENT, names the existing
     * instance's ID and changes nothing (move it with a delete and a create, as
     * {@code egressctl apply} does). Where a zone cannot be read, the name cannot be proven free:
     * that is TRANSIENT, naming the zone, and changes nothing.
     *
     * <p>The instance records the placement and the {@linkplain CreateRequest#cloudInitSha256()
     * user-data digest} it was created with, reported by {@link #get} and {@link #listManaged} in
     * {@link Instance}; the zone recorded is the one the instance went to (the only zone, when the
     * request left it empty, or the one the backend chose as {@link #place} would). A create of an
     * existing name with other values (placement, UID, user-data) does not change the instance; it
     * returns its ID. A request without zone matches the name in any zone.
     *
     * <p>The name's uniqueness holds between processes and machines too: two creates of one name
     * started together, in two zones, by two processes, make one instance (the other is PERMANENT
     * naming it, as above). A backend whose zones do not share a lock provides one of its own, as
     * the KVM backends do with a claim volume on a designated host.
     *
     * @return the provider ID, accepted as is by {@link #get} and {@link #delete}
     * @throws ProviderException PERMANENT for a bad request or placement, or a name that exists in
     *                           another zone, QUOTA_EXCEEDED when the backend lacks room, TRANSIENT
     *                           for anything worth retrying
     * @since 1.0.0
     */
    String create(CreateRequest request, Deadline deadline);

    /**
     * Checks a create request against this entry's configuration without any I/O: exactly the
     * checks {@link #create} makes before it touches anything, with the same PERMANENT errors. A
     * request this method accepts may still fail in create for reasons only I/O can reveal (the
     * backend is unreachable, out of room, or the name exists in another zone).
     *
     * <p>Callers such as {@code egressctl apply} use it to check a whole desired set before changing
     * anything. Every backend overrides it with its placement checks (zones, machine types, images)
     * and calls it from create. It is a default method only so that plugins built before it existed
     * keep loading: the default checks only the contract's rules ({@link CreateRequest#validate})
     * and, not knowing the entry's name, reports none, so a backend that keeps it compiles but fails
     * the conformance suite's Validate group (an unknown zone, machine type or image accepted).
     *
     * @param request the request to check
     * @throws ProviderException PERMANENT, with the message create would give
     * @since 1.0.0
     */
    default void validate(CreateRequest request) {
        request.validate("");
    }

    /**
     * Reports the instance with this provider ID. An instance this platform did not create is
     * reported too (an operator may look at what holds a name), with an empty UID and no creation
     * time; one created through another entry is not.
     *
     * @throws ProviderException NOT_FOUND when it does not exist, PERMANENT when the ID is malformed
     *                           or names an instance created through another entry
     * @since 1.0.0
     */
    Instance get(String id, Deadline deadline);

    /**
     * Deletes the instance with this provider ID and everything made for it.
     *
     * <p>Idempotent at every step: deleting what is already gone, in whole or in part, succeeds.
     * An instance this platform did not create, or created through another entry, is never
     * deleted: that is PERMANENT and changes nothing, so an ID typed by hand cannot destroy someone
     * else's VM, nor one entry another's where entries share infrastructure.
     *
     * @throws ProviderException PERMANENT when the ID is malformed or names an instance this
     *                           platform did not create or created through another entry,
     *                           TRANSIENT when a step failed
     * @since 1.0.0
     */
    void delete(String id, Deadline deadline);

    /**
     * Lists every instance this platform created through this entry (marked in the instance's own
     * metadata with the entry), across all of the entry's zones; instances of other entries, even
     * on the same infrastructure, and instances made by anyone else are left out, so orphan
     * collection never deletes them.
     *
     * <p>All or nothing: when any zone or host cannot be read, the whole call fails, because
     * orphan collection must never act on a partial view. A single unreadable instance is skipped.
     *
     * @throws ProviderException TRANSIENT when any zone or host could not be read
     * @since 1.0.0
     */
    List<Instance> listManaged(Deadline deadline);

    /**
     * The zones this entry's instances live in, each of which {@link #listManaged(String, Deadline)}
     * reads on its own, so that a caller acting zone by zone (the resident {@code egressctl serve})
     * keeps working on the zones that answer while one does not. Empty, the default, when the
     * backend cannot list a zone alone; such an entry is listed whole.
     *
     * @since 1.0.0
     */
    default List<String> zones() {
        return List.of();
    }

    /**
     * Lists the instances of one of the {@link #zones()}: exactly those {@link #listManaged(Deadline)}
     * reports in that zone, all or nothing for the zone. Only that zone is consulted, so another zone
     * that does not answer has no effect here.
     *
     * <p>The default filters {@link #listManaged(Deadline)} by each instance's recorded zone, so it
     * fails whenever any zone does; backends that can read a zone alone override it with
     * {@link #zones()}.
     *
     * @throws ProviderException TRANSIENT when the zone could not be read, PERMANENT when it is not
     *                           one of {@link #zones()}
     * @since 1.0.0
     */
    default List<Instance> listManaged(String zone, Deadline deadline) {
        return listManaged(deadline).stream().filter(instance -> instance.placement().zone().equals(zone)).toList();
    }

    /**
     * Chooses a zone for each placement that names none, together and in order: each choice counts
     * the ones before it, as if their instances were created in that order. A placement that names
     * a zone keeps it, with the reason {@code "named"}. Reads only; changes nothing, so a plan can
     * show the choices before anything is created.
     *
     * <p>A backend with several zones that chooses overrides it, declares
     * {@link dev.egressproxies.api.conformance.Capability#PLACES_INSTANCES} in its conformance
     * profile, and makes {@link #create} of a request without zone choose the same way (counting the
     * creates it has under way). It chooses among zones that are not {@linkplain #cordonedZones(Deadline)
     * cordoned} and that answer, one with room for the machine type, spreading the entry's instances
     * over its zones. The default returns every placement's zone as it is, with an empty reason:
     * create then decides, which suits a backend with one zone.
     *
     * @param placements the placements to place, in the order their instances would be created
     * @return one choice per placement, in the same order
     * @throws ProviderException PERMANENT for a placement that {@link #validate} would refuse,
     *                           QUOTA_EXCEEDED when no zone has room, TRANSIENT when zones that could
     *                           have room do not answer, or every zone with room is cordoned
     * @since 1.1.0
     */
    default List<ZoneChoice> place(List<Placement> placements, Deadline deadline) {
        return placements.stream().map(placement -> new ZoneChoice(placement.zone(),
                placement.zone().isEmpty() ? "" : "named")).toList();
    }

    /**
     * Cordons a zone, so that no new instance lands there (a create naming it is TRANSIENT and
     * {@link #place} skips it), or lifts the cordon. The instances in it stay, and a create of an
     * existing instance's name there still starts it. Every process using the entry sees the
     * cordon. Idempotent.
     *
     * @param zone     one of the {@linkplain #zones() zones}
     * @param cordoned {@code true} to cordon, {@code false} to lift it
     * @throws ProviderException PERMANENT for a zone that is not one of the entry's, or when the
     *                           backend has no cordons (the default), TRANSIENT when the mark could
     *                           not be written
     * @since 1.1.0
     */
    default void cordon(String zone, boolean cordoned, Deadline deadline) {
        throw new ProviderException(ErrorKind.PERMANENT, Operation.CORDON, "", "", "this backend ("
                + getClass().getName() + ") cannot cordon zones: pin placements to the zones to use instead");
    }

    /**
     * The zones that are cordoned now; empty, the default, for a backend without cordons.
     *
     * @throws ProviderException TRANSIENT when the cordons could not be read
     * @since 1.1.0
     */
    default Set<String> cordonedZones(Deadline deadline) {
        return Set.of();
    }

    /**
     * Lists the base images this entry's backend keeps in one zone, each with the instances that
     * back on it and whether a lease holds it. Reads only. Only that zone is consulted, so a caller
     * listing every zone (one call each, as {@code egressctl images} does) reports a zone that does
     * not answer and lists the others. A backend whose zones share one cache of bases, or that has no
     * zones, lists it under {@code ""}.
     *
     * <p>A backend that keeps base images overrides this, {@link #pullImage} and {@link #pruneImages}
     * and declares {@link dev.egressproxies.api.conformance.Capability#MANAGES_IMAGES}. The default
     * refuses: PERMANENT, naming the backend.
     *
     * @param zone one of the {@linkplain #zones() zones}, or {@code ""} when there are none
     * @return the bases, sorted by name
     * @throws ProviderException PERMANENT for a zone that is not one of the entry's, or when the
     *                           backend keeps no base images (the default); TRANSIENT when the zone
     *                           could not be read
     * @since 1.2.0
     */
    default List<BaseImage> images(String zone, Deadline deadline) {
        throw imagesRefused(Operation.IMAGES);
    }

    /**
     * Makes the base of an image exist, complete, in one zone, exactly as {@link #create} would
     * before it makes an instance's disk, without making an instance. Idempotent: a base that is
     * there already moves nothing. It takes the same locks as a create's fetch, so a create and a pull
     * of one image at once fetch it once (one of them may fail TRANSIENT, naming the other, as two
     * creates would).
     *
     * @param image an image as a placement names it (a catalogue key, or a URL where the backend
     *              takes one)
     * @param zone  one of the {@linkplain #zones() zones}, or {@code ""} when there are none
     * @throws ProviderException PERMANENT for an unknown image or zone, or when the backend keeps no
     *                           base images (the default); QUOTA_EXCEEDED when the zone lacks room;
     *                           TRANSIENT for anything worth retrying
     * @since 1.2.0
     */
    default PulledImage pullImage(String image, String zone, Deadline deadline) {
        throw imagesRefused(Operation.PULL_IMAGE);
    }

    /**
     * Deletes the base images of one zone that no instance backs on, no lease holds, and that are
     * older than {@code olderThan}, or, with {@code dryRun}, says which it would delete and changes
     * nothing. No instance starts backing on a base while it is deleted: a create racing a prune of
     * its base either backs on a base that still exists, or fetches a new one.
     *
     * @param zone      one of the {@linkplain #zones() zones}, or {@code ""} when there are none
     * @param olderThan only bases fetched longer ago than this; {@link Duration#ZERO} for any age (a
     *                  base whose age is unknown counts only then)
     * @param dryRun    {@code true} to delete nothing
     * @return what was deleted (or would be), sorted by name
     * @throws ProviderException PERMANENT for a zone that is not one of the entry's, or when the
     *                           backend keeps no base images (the default); TRANSIENT when the zone
     *                           could not be read, or failed before it could report what it deleted
     *                           (retry: a later call reports what is left)
     * @since 1.2.0
     */
    default List<PrunedImage> pruneImages(String zone, Duration olderThan, boolean dryRun, Deadline deadline) {
        throw imagesRefused(Operation.PRUNE_IMAGES);
    }

    private ProviderException imagesRefused(Operation operation) {
        return new ProviderException(ErrorKind.PERMANENT, operation, "", "", "this backend (" + getClass().getName()
                + ") keeps no base images to list, pull or prune");
    }

    /**
     * Checks, without changing anything, that this entry can work: its backend is reachable, its
     * credentials and configuration are accepted. Used by {@code egressctl check}.
     *
     * @return one result per check made; empty when there is nothing to check
     * @since 1.0.0
     */
    default List<PreflightCheck> preflight(Deadline deadline) {
        return List.of();
    }

    /**
     * Releases connections and threads; the provider is not used afterwards.
     *
     * @since 1.0.0
     */
    @Override
    default void close() {
    }
}

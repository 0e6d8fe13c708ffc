package dev.egressproxies.fake.state;

import java.time.Instant;
import java.util.Objects;

/**
 * One instance as the fake keeps it, in memory or in the state file.
 *
 * @param id          its provider ID, {@code zone/name}
 * @param name        its name
 * @param managed     whether this platform created it (an unmanaged one has no UID or creation time)
 * @param entry       the provider entry it was created through; {@code ""} when unmanaged, and for a
 *                    managed instance recorded before the state file kept entries (version 1), which
 *                    therefore belongs to no entry
 * @param uid         the UID it was created with, {@code ""} when unmanaged
 * @param createdAt   when this platform created it, {@code null} when unmanaged
 * @param startedAt   when it was last started; it boots from then on
 * @param stopped     whether it is stopped
 * @param ip          the address it holds while it exists
 * @param machineType the machine type it was created as, {@code ""} when unmanaged
 * @param image       the image it was created from, {@code ""} when unmanaged
 * @param userDataSha256 the sha256 of the user-data it was created with, {@code ""} when unmanaged
 *                    and for an instance recorded before the state file kept it (versions 1 and 2)
 */
public record StoredInstance(String id, String name, boolean managed, String entry, String uid, Instant createdAt,
                             Instant startedAt, boolean stopped, String ip, String machineType, String image,
                             String userDataSha256) {

    /** Rejects missing values, so a damaged state file is reported as corrupt rather than misread. */
    public StoredInstance {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(entry, "entry");
        Objects.requireNonNull(uid, "uid");
        if (managed) {
            Objects.requireNonNull(createdAt, "createdAt");
        }
        Objects.requireNonNull(startedAt, "startedAt");
        Objects.requireNonNull(ip, "ip");
        Objects.requireNonNull(machineType, "machineType");
        Objects.requireNonNull(image, "image");
        Objects.requireNonNull(userDataSha256, "userDataSha256");
    }

    /** The zone it is in: the part of its ID before the '/'. */
    public String zone() {
        int slash = id.indexOf('/');
        return slash < 0 ? "" : id.substring(0, slash);
    }

    /** Whether this platform created it through the provider entry named {@code entryName}. */
    public boolean createdThrough(String entryName) {
        return managed && !entry.isEmpty() && entry.equals(entryName);
    }

    /** Whether this platform created it before the state file recorded entries, so no entry manages it. */
    public boolean ofNoEntry() {
        return managed && entry.isEmpty();
    }

    /** This instance, stopped. */
    public StoredInstance stop() {
        return new StoredInstance(id, name, managed, entry, uid, createdAt, startedAt, true, ip, machineType, image,
                userDataSha256);
    }

    /** This instance, started (again) at {@code now}. */
    public StoredInstance start(Instant now) {
        return new StoredInstance(id, name, managed, entry, uid, createdAt, now, false, ip, machineType, image,
                userDataSha256);
    }
}

package dev.egressproxies.fake.state;

import java.time.Instant;
import java.util.Objects;

/**
 * One instance as the fake keeps it, in memory or in the state file.
 *
 * @param id          its provider ID, {@code zone/name}
 * @param name        its name
 * @param managed     whether this platform created it (an unmanaged one has no UID or creation time)
 * @param uid         the UID it was created with, {@code ""} when unmanaged
 * @param createdAt   when this platform created it, {@code null} when unmanaged
 * @param startedAt   when it was last started; it boots from then on
 * @param stopped     whether it is stopped
 * @param ip          the address it holds while it exists
 * @param machineType the machine type it was created as, {@code ""} when unmanaged
 * @param image       the image it was created from, {@code ""} when unmanaged
 */
public record StoredInstance(String id, String name, boolean managed, String uid, Instant createdAt,
                             Instant startedAt, boolean stopped, String ip, String machineType, String image) {

    /** Rejects missing values, so a damaged state file is reported as corrupt rather than misread. */
    public StoredInstance {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(uid, "uid");
        if (managed) {
            Objects.requireNonNull(createdAt, "createdAt");
        }
        Objects.requireNonNull(startedAt, "startedAt");
        Objects.requireNonNull(ip, "ip");
        Objects.requireNonNull(machineType, "machineType");
        Objects.requireNonNull(image, "image");
    }

    /** This instance, stopped. */
    public StoredInstance stop() {
        return new StoredInstance(id, name, managed, uid, createdAt, startedAt, true, ip, machineType, image);
    }

    /** This instance, started (again) at {@code now}. */
    public StoredInstance start(Instant now) {
        return new StoredInstance(id, name, managed, uid, createdAt, now, false, ip, machineType, image);
    }
}

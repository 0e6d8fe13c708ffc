package dev.egressproxies.fake;

import dev.egressproxies.api.BaseImage;
import dev.egressproxies.api.PrunedImage;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The fake backend's base images: one per image and zone, made by the first create or pull of the
 * image there, in this provider's memory. Users are read from the instances, so in state-file mode
 * a base that instances of another process back on is listed too (as made when the earliest of them
 * was); a base that only another process pulled is not. Safe for concurrent use.
 */
final class FakeBaseImages {
    /** What one base takes, as the fake reports it. */
    static final long BASE_BYTES = 512L * 1024 * 1024;
    static final long VIRTUAL_BYTES = 2L * 1024 * 1024 * 1024;

    /** By zone, then image: when the base was made. */
    private final Map<String, Map<String, Instant>> made = new TreeMap<>();

    /** The name a base of {@code image} has in every zone. */
    static String nameOf(String image) {
        return image + ".base";
    }

    /** Records the base of {@code image} in {@code zone} as made at {@code now}; false when it was there. */
    synchronized boolean add(String zone, String image, Instant now) {
        return made.computeIfAbsent(zone, unused -> new TreeMap<>()).putIfAbsent(image, now) == null;
    }

    /** The zone's bases: those made here, and those the {@code instances} (id, zone, image, created) back on. */
    synchronized List<BaseImage> list(String zone, Collection<Use> instances) {
        Map<String, Instant> bases = new TreeMap<>(made.getOrDefault(zone, Map.of()));
        Map<String, Set<String>> users = new TreeMap<>();
        for (Use use : instances) {
            if (use.zone().equals(zone) && !use.image().isEmpty()) {
                users.computeIfAbsent(use.image(), unused -> new TreeSet<>()).add(use.name());
                bases.merge(use.image(), use.created(), (known, other) -> known.isBefore(other) ? known : other);
            }
        }
        List<BaseImage> listed = new ArrayList<>();
        bases.forEach((image, created) -> listed.add(new BaseImage(zone, nameOf(image), image, "fake://images", "",
                "qcow2", VIRTUAL_BYTES, BASE_BYTES, created, List.copyOf(users.getOrDefault(image, Set.of())),
                BaseImage.LeaseState.NONE, "", false)));
        return listed;
    }

    /** Deletes the unused bases made before {@code cutOff} (any, when null) unless {@code dryRun}; returns them. */
    synchronized List<PrunedImage> prune(String zone, Collection<Use> instances, Instant cutOff, boolean dryRun) {
        List<PrunedImage> pruned = new ArrayList<>();
        for (BaseImage base : list(zone, instances)) {
            if (!base.unused() || (cutOff != null && !base.createdAt().isBefore(cutOff))) {
                continue;
            }
            pruned.add(new PrunedImage(zone, base.name(), base.key(), base.allocatedBytes(), base.createdAt()));
            if (!dryRun) {
                made.getOrDefault(zone, new TreeMap<>()).remove(base.key());
            }
        }
        return pruned;
    }

    /** An instance as a base's user: its name, zone, image and creation time. */
    record Use(String name, String zone, String image, Instant created) {
    }
}

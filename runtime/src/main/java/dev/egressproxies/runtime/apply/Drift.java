package dev.egressproxies.runtime.apply;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.Placement;
import java.util.ArrayList;
import java.util.List;

/**
 * What differs between the instance a create request asks for and an existing instance of that
 * name: the zone, machine type, image or user-data, each a reason to replace the instance.
 *
 * <p>A value the instance reports as {@code ""} is unknown (an instance made before its backend
 * recorded it) and never differs, so an instance is never replaced on a guess; a request that
 * leaves the zone empty accepts any zone.
 */
public final class Drift {
    /** How many hex digits of a user-data digest a change shows. */
    private static final int SHORT_DIGEST = 12;

    private Drift() {
    }

    /**
     * One field that differs.
     *
     * @param field the field, as the desired-set file names it ({@code zone}, {@code machineType},
     *              {@code image}, {@code userData})
     * @param from  the instance's value (for user-data, a short sha256)
     * @param to    the requested value
     */
    public record Change(String field, String from, String to) {
        @Override
        public String toString() {
            return field + ": " + from + " -> " + to;
        }
    }

    /** The fields in which {@code existing} differs from what {@code wanted} asks for; empty when none. */
    public static List<Change> between(CreateRequest wanted, Instance existing) {
        Placement asked = wanted.placement();
        Placement actual = existing.placement();
        List<Change> changes = new ArrayList<>();
        compare("zone", actual.zone(), asked.zone(), changes);
        compare("machineType", actual.machineType(), asked.machineType(), changes);
        compare("image", actual.image(), asked.image(), changes);
        String digest = wanted.cloudInitSha256();
        if (!existing.userDataSha256().isEmpty() && !existing.userDataSha256().equalsIgnoreCase(digest)) {
            changes.add(new Change("userData", "sha256:" + shortDigest(existing.userDataSha256()),
                    "sha256:" + shortDigest(digest)));
        }
        return List.copyOf(changes);
    }

    private static void compare(String field, String actual, String asked, List<Change> changes) {
        if (!actual.isEmpty() && !asked.isEmpty() && !actual.equals(asked)) {
            changes.add(new Change(field, actual, asked));
        }
    }

    private static String shortDigest(String sha256) {
        return sha256.length() <= SHORT_DIGEST ? sha256 : sha256.substring(0, SHORT_DIGEST);
    }
}

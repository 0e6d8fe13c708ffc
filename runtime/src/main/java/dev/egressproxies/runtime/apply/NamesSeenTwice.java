package dev.egressproxies.runtime.apply;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.ProviderException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Settles a listing that shows one name in two zones. An entry's zones are read one after another
 * (or side by side), never at one instant, so a proxy that {@code drain} moves between two reads
 * is seen on its old host before its delete and on its new one after its create. A move deletes
 * before it creates, so once every zone has been read, looking up each copy again drops the copy
 * that is gone. Copies that are still there are both shown: that is the fleet as it is (instances
 * made before names were claimed across zones), for the planner to resolve.
 */
public final class NamesSeenTwice {
    private NamesSeenTwice() {
    }

    /**
     * Looks up again every instance whose name the listing holds more than once, and leaves out
     * those the backend no longer has. Any other failure keeps the copy: a lookup that could not
     * answer is no evidence that the instance is gone.
     *
     * @param provider the entry the listing came from
     * @param listed   its managed instances, as listed
     * @param deadline the deadline of the lookups
     * @return the listing without the copies found gone, in the same order
     */
    public static List<Instance> recheck(Provider provider, List<Instance> listed, Deadline deadline) {
        Map<String, Integer> copies = new HashMap<>();
        listed.forEach(instance -> copies.merge(instance.name(), 1, Integer::sum));
        if (copies.values().stream().allMatch(count -> count == 1)) {
            return listed;
        }
        Set<String> gone = new HashSet<>();
        for (Instance instance : listed) {
            if (copies.get(instance.name()) > 1 && isGone(provider, instance, deadline)) {
                gone.add(instance.id());
            }
        }
        List<Instance> settled = new ArrayList<>(listed);
        settled.removeIf(instance -> gone.contains(instance.id()));
        return List.copyOf(settled);
    }

    private static boolean isGone(Provider provider, Instance instance, Deadline deadline) {
        try {
            provider.get(instance.id(), deadline);
            return false;
        } catch (ProviderException e) {
            return e.kind() == ErrorKind.NOT_FOUND;
        }
    }
}

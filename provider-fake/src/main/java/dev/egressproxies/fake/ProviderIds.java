package dev.egressproxies.fake;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import java.util.regex.Pattern;

/**
 * The fake provider's instance IDs: {@code zone/name}, where the zone is a configured zone name
 * and the name a DNS label, so an ID says where to look without any lookup table.
 */
final class ProviderIds {
    private static final String ZONE = "[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?";
    private static final String NAME = "[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?";
    private static final Pattern ZONE_NAME = Pattern.compile(ZONE);
    private static final Pattern INSTANCE_NAME = Pattern.compile(NAME);
    private static final Pattern ID = Pattern.compile(ZONE + "/" + NAME);

    private ProviderIds() {
    }

    /** The ID of the instance named {@code name} in {@code zone}. */
    static String format(String zone, String name) {
        return zone + "/" + name;
    }

    /** The zone part of a well-formed {@code id}. */
    static String zoneOf(String id) {
        return id.substring(0, id.indexOf('/'));
    }

    /** Whether {@code zone} can be a zone name, and so the first part of an ID. */
    static boolean isZoneName(String zone) {
        return zone != null && ZONE_NAME.matcher(zone).matches();
    }

    /** Whether {@code name} can be an instance name (a DNS label), and so the second part of an ID. */
    static boolean isInstanceName(String name) {
        return name != null && INSTANCE_NAME.matcher(name).matches();
    }

    /**
     * Checks that {@code id} has the form create returns.
     *
     * @throws ProviderException PERMANENT, saying what a valid ID looks like
     */
    static void requireWellFormed(String id, Operation operation, String entry) {
        if (id == null || !ID.matcher(id).matches()) {
            throw new ProviderException(ErrorKind.PERMANENT, operation, entry, id,
                    "provider ID '" + id + "' is malformed: pass the ID that create returned, which has the form"
                            + " ZONE/NAME, for example 'zone-a/proxy-1'");
        }
    }
}

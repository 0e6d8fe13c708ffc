package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import java.util.regex.Pattern;

/**
 * A provider ID of this backend, {@code host/name}: the configured host the domain lives on and
 * the domain's name. The host is part of the ID so get and delete look at the right hypervisor
 * without a lookup table, even after the request's zone changed.
 *
 * @param host the host's configured name
 * @param name the domain name, a DNS label
 */
public record ProviderId(String host, String name) {
    private static final String HOST = "[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?";
    private static final String NAME = "[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?";
    private static final Pattern ID = Pattern.compile("(" + HOST + ")/(" + NAME + ")");

    /**
     * Parses an ID that create returned.
     *
     * @throws ProviderException PERMANENT when it is malformed, saying what a valid ID looks like
     */
    public static ProviderId parse(String id, Operation operation, String entry) {
        var matcher = id == null ? null : ID.matcher(id);
        if (matcher == null || !matcher.matches()) {
            throw new ProviderException(ErrorKind.PERMANENT, operation, entry, id, "provider ID '" + id
                    + "' is malformed: pass the ID that create returned, which has the form HOST/NAME,"
                    + " for example 'host-1/proxy-1'");
        }
        return new ProviderId(matcher.group(1), matcher.group(3));
    }

    @Override
    public String toString() {
        return host + "/" + name;
    }
}

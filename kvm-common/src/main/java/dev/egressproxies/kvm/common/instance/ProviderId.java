package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import java.util.regex.Pattern;

/** A KVM provider ID, {@code host/name}: get and delete find the hypervisor without a lookup table. */
public record ProviderId(String host, String name) {
    private static final String HOST = "[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?";
    private static final String NAME = "[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?";
    private static final Pattern ID = Pattern.compile("(" + HOST + ")/(" + NAME + ")");

    /** Parses an ID that create returned; PERMANENT when it is malformed. */
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

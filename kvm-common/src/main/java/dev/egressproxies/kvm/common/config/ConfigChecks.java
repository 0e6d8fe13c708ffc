package dev.egressproxies.kvm.common.config;

import dev.egressproxies.kvm.common.seed.NoCloudSeed;
import java.time.Duration;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The checks the KVM configuration records share; each throws {@link IllegalArgumentException}
 * whose message starts with the component's name, so the registry reports it at that path.
 */
public final class ConfigChecks {
    /** Letters, digits, '.', '_' and '-', starting and ending with a letter or digit, at most 63. */
    public static final Pattern NAME = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?");
    /** Each VM's disk size unless configured, in GiB. */
    public static final int DEFAULT_DISK_SIZE_GB = 10;
    /** The largest disk accepted, in GiB (64 TiB); a guard against a typo that fills the pool. */
    public static final int MAXIMUM_DISK_SIZE_GB = 65536;

    private ConfigChecks() {
    }

    /** Returns {@code value} when it is non-blank text without whitespace or control characters. */
    public static String requireWord(String component, String value, String example) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(component + ": required; for example " + example);
        }
        if (!value.codePoints().allMatch(character -> character > 0x20 && character != 0x7f)) {
            throw new IllegalArgumentException(component + ": '" + value
                    + "' contains spaces or control characters; for example " + example);
        }
        return value;
    }

    /** Returns {@code value}, or {@code fallback} when it is absent. */
    public static String wordOrDefault(String component, String value, String fallback) {
        return value == null ? fallback : requireWord(component, value, fallback);
    }

    /** Returns {@code value} when it is an absolute path (on the host: not checked here). */
    public static String requireAbsolutePath(String component, String value, String example) {
        requireWord(component, value, example);
        if (!value.startsWith("/")) {
            throw new IllegalArgumentException(component + ": '" + value + "' is not an absolute path; for example "
                    + example);
        }
        return value;
    }

    /** Returns {@code value} when it is one of {@code allowed}, compared exactly. */
    public static String requireOneOf(String component, String value, String... allowed) {
        for (String candidate : allowed) {
            if (candidate.equals(value)) {
                return value;
            }
        }
        throw new IllegalArgumentException(component + ": '" + value + "' is not supported; use one of "
                + String.join(", ", allowed));
    }

    /** Returns what {@code parser} makes of {@code value}; its refusal is prefixed with the component's name. */
    public static <T> T parse(String component, String value, Function<String, T> parser) {
        try {
            return parser.apply(value);
        } catch (IllegalArgumentException refused) {
            throw new IllegalArgumentException(component + ": " + refused.getMessage(), refused);
        }
    }

    /** Returns {@code name} when it matches {@link #NAME}. */
    public static String requireName(String component, String name, String example) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException(component + ": required; for example " + example);
        }
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(component + ": '" + name + "' is not a valid name; use 1 to 63"
                    + " letters, digits, '.', '_' or '-', starting and ending with a letter or digit, for example "
                    + example);
        }
        return name;
    }

    /** Returns the hosts, unmodifiable, when there is at least one and their names are unique. */
    public static <H> List<H> hosts(List<H> hosts, Function<H, String> nameOf) {
        if (hosts == null || hosts.isEmpty()) {
            throw new IllegalArgumentException("hosts: at least one host is required, for example"
                    + " [{name: host-1, address: 10.0.0.5, bridge: br0}]");
        }
        Set<String> names = new HashSet<>();
        for (int index = 0; index < hosts.size(); index++) {
            H host = hosts.get(index);
            if (host == null) {
                throw new IllegalArgumentException("hosts: entry " + index + " is empty; give it at least name,"
                        + " address and bridge");
            }
            if (!names.add(nameOf.apply(host))) {
                throw new IllegalArgumentException("hosts: the name '" + nameOf.apply(host) + "' is used twice; host"
                        + " names are zones and parts of provider IDs, so each must be unique");
            }
        }
        return List.copyOf(hosts);
    }

    /** Returns the named entries, in order, when there are any, all named per {@link #NAME} and none empty. */
    public static <V> Map<String, V> named(String component, Map<String, V> entries, String example) {
        if (entries == null || entries.isEmpty()) {
            throw new IllegalArgumentException(component + ": at least one is required, for example {" + example + "}");
        }
        Map<String, V> checked = new LinkedHashMap<>();
        entries.forEach((name, value) -> {
            if (name == null || !NAME.matcher(name).matches()) {
                throw new IllegalArgumentException(component + ": the name '" + name + "' is not valid; use 1 to 63"
                        + " letters, digits, '.', '_' or '-', starting and ending with a letter or digit");
            }
            if (value == null) {
                throw new IllegalArgumentException(component + ": '" + name + "' has no settings; for example {"
                        + example + "}");
            }
            checked.put(name, value);
        });
        return Collections.unmodifiableMap(checked);
    }

    /** Returns the disk size in GiB, {@link #DEFAULT_DISK_SIZE_GB} when absent, when it is in range. */
    public static int diskSizeGb(Integer diskSizeGb) {
        int size = diskSizeGb == null ? DEFAULT_DISK_SIZE_GB : diskSizeGb;
        if (size < 1 || size > MAXIMUM_DISK_SIZE_GB) {
            throw new IllegalArgumentException("diskSizeGb: " + size + " is out of range; use 1 to "
                    + MAXIMUM_DISK_SIZE_GB + " (GiB), or leave it out for " + DEFAULT_DISK_SIZE_GB);
        }
        return size;
    }

    /** Returns the vendor-data, {@link NoCloudSeed#DEFAULT_VENDOR_DATA} when absent. */
    public static String vendorData(String vendorData) {
        return vendorData == null ? NoCloudSeed.DEFAULT_VENDOR_DATA : vendorData;
    }

    /** Returns {@code value}, or {@code fallback} when it is absent, when it is positive. */
    public static Duration positive(String component, Duration value, Duration fallback) {
        if (value == null) {
            return fallback;
        }
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(component + ": " + value + " is not positive; for example "
                    + fallback.toSeconds() + "s");
        }
        return value;
    }

    /** Returns the claims host's name, the first host's when absent, when it names one of {@code hostNames}. */
    public static String claimsHost(String claimsHost, List<String> hostNames) {
        if (claimsHost == null || claimsHost.isEmpty()) {
            return hostNames.get(0);
        }
        if (!hostNames.contains(claimsHost)) {
            throw new IllegalArgumentException("claimsHost: '" + claimsHost + "' is not one of the entry's hosts "
                    + hostNames + ": name one of them, or leave claimsHost out to use the first");
        }
        return claimsHost;
    }
}

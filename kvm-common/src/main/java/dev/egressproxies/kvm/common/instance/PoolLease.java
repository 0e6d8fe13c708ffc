package dev.egressproxies.kvm.common.instance;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The content of a lease volume: token, holder, expiry and, for a fetch lease a prune holds,
 * {@code purpose=prune}, as {@code key=value} lines of ASCII (readers ignore keys they do not know).
 *
 * @param purpose {@link #PRUNE}, or {@code ""} for a fetch (and any lease older versions wrote)
 */
public record PoolLease(String token, LeaseHolder holder, Instant expires, String purpose) {
    static final int READ_CAP = 1024;
    /** The purpose of the fetch lease a prune takes before it deletes the base. */
    public static final String PRUNE = "prune";

    /** A lease without purpose: a fetch's, or a claim's. */
    public PoolLease(String token, LeaseHolder holder, Instant expires) {
        this(token, holder, expires, "");
    }

    /** Whether a prune holds it: the base may be deleted once it goes. */
    public boolean pruning() {
        return PRUNE.equals(purpose);
    }

    public byte[] bytes() {
        return ("token=" + token + "\nmachine=" + holder.machine() + "\nboot-id=" + holder.bootId() + "\npid="
                + holder.pid() + "\nstarted=" + holder.started() + "\nexpires=" + expires.toEpochMilli() + "\n"
                + (purpose.isEmpty() ? "" : "purpose=" + purpose + "\n")).getBytes(StandardCharsets.US_ASCII);
    }

    /** The lease a volume holds, or empty when its content is not a whole lease (still being written, or garbage). */
    static Optional<PoolLease> parse(byte[] content) {
        Map<String, String> fields = new HashMap<>();
        for (String line : new String(content, StandardCharsets.US_ASCII).split("\n")) {
            int equals = line.indexOf('=');
            if (equals > 0) {
                fields.put(line.substring(0, equals), line.substring(equals + 1).strip());
            }
        }
        try {
            return Optional.of(new PoolLease(require(fields, "token"),
                    new LeaseHolder(require(fields, "machine"), require(fields, "boot-id"),
                            Long.parseLong(require(fields, "pid")), Long.parseLong(require(fields, "started"))),
                    Instant.ofEpochMilli(Long.parseLong(require(fields, "expires"))),
                    fields.getOrDefault("purpose", "")));
        } catch (IllegalArgumentException incomplete) {
            return Optional.empty();
        }
    }

    private static String require(Map<String, String> fields, String key) {
        String value = fields.get(key);
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("no " + key);
        }
        return value;
    }
}

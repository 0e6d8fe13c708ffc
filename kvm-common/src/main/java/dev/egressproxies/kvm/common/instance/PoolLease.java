package dev.egressproxies.kvm.common.instance;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** The content of a fetch lease volume: token, holder and expiry as {@code key=value} lines of ASCII. */
public record PoolLease(String token, LeaseHolder holder, Instant expires) {
    static final int READ_CAP = 1024;

    public byte[] bytes() {
        return ("token=" + token + "\nmachine=" + holder.machine() + "\nboot-id=" + holder.bootId() + "\npid="
                + holder.pid() + "\nstarted=" + holder.started() + "\nexpires=" + expires.toEpochMilli() + "\n")
                .getBytes(StandardCharsets.US_ASCII);
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
                    Instant.ofEpochMilli(Long.parseLong(require(fields, "expires")))));
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

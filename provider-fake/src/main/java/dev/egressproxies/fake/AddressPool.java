package dev.egressproxies.fake;

import java.util.Optional;
import java.util.Set;

/**
 * The addresses the fake hands out: 198.51.100.1 to 198.51.100.254 first (TEST-NET-2, reserved
 * for documentation), then 198.18.0.1 to 198.19.255.254 (reserved for benchmarking), so a fake
 * address can never reach a real host and a state file has room for far more instances than a
 * demo or test makes.
 */
final class AddressPool {
    /** The networks, for messages. */
    static final String NETWORK = "198.51.100.0/24 and 198.18.0.0/15";
    private static final int DOCUMENTATION_HOSTS = 254;
    /** 198.18.0.0/15 without its network and broadcast addresses. */
    private static final int BENCHMARKING_HOSTS = (1 << 17) - 2;
    /** How many addresses the pool has. */
    static final int SIZE = DOCUMENTATION_HOSTS + BENCHMARKING_HOSTS;

    private AddressPool() {
    }

    /**
     * The lowest address no existing instance holds, in the order above, so a deleted instance's
     * address is reused first; empty when every address is taken.
     */
    static Optional<String> lowestFree(Set<String> taken) {
        for (int index = 0; index < SIZE; index++) {
            String address = address(index);
            if (!taken.contains(address)) {
                return Optional.of(address);
            }
        }
        return Optional.empty();
    }

    /** The address at {@code index} of the pool's order. */
    static String address(int index) {
        if (index < DOCUMENTATION_HOSTS) {
            return "198.51.100." + (index + 1);
        }
        int host = index - DOCUMENTATION_HOSTS + 1;
        return "198." + (18 + (host >> 16)) + "." + ((host >> 8) & 0xff) + "." + (host & 0xff);
    }
}

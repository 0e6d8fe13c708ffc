package dev.egressproxies.fake;

import java.util.Optional;
import java.util.Set;

/**
 * The addresses the fake hands out: 198.51.100.1 to 198.51.100.254 (TEST-NET-2, reserved for
 * documentation, so a fake address can never reach a real host).
 */
final class AddressPool {
    /** The network, for messages. */
    static final String NETWORK = "198.51.100.0/24";
    /** How many addresses the pool has. */
    static final int SIZE = 254;
    private static final String PREFIX = "198.51.100.";

    private AddressPool() {
    }

    /**
     * The lowest address no existing instance holds, so a deleted instance's address is reused
     * first; empty when every address is taken.
     */
    static Optional<String> lowestFree(Set<String> taken) {
        for (int host = 1; host <= SIZE; host++) {
            String address = PREFIX + host;
            if (!taken.contains(address)) {
                return Optional.of(address);
            }
        }
        return Optional.empty();
    }
}

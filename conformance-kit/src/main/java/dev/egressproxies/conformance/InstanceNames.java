package dev.egressproxies.conformance;

import java.security.SecureRandom;

/**
 * The instance names one test uses: each carries a random token, so tests, test runs and
 * machines sharing one real hypervisor never reuse a name, and cleanup can find every instance a
 * test made by that token alone.
 */
final class InstanceNames {
    private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
    private static final int TOKEN_LENGTH = 8;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String prefix;
    private final String token;

    private InstanceNames(String prefix, String token) {
        this.prefix = prefix;
        this.token = token;
    }

    /** Names that start with {@code prefix} (may be empty), followed by a fresh random token. */
    static InstanceNames unique(String prefix) {
        StringBuilder token = new StringBuilder(TOKEN_LENGTH);
        for (int i = 0; i < TOKEN_LENGTH; i++) {
            token.append(ALPHABET.charAt(RANDOM.nextInt(ALPHABET.length())));
        }
        return new InstanceNames(prefix, token.toString());
    }

    /**
     * The name for one purpose within the test, such as {@code "a"} or {@code "twice"}. Not
     * checked: tests build invalid names on purpose.
     */
    String name(String purpose) {
        return prefix + "cf-" + token + "-" + purpose;
    }

    /**
     * A valid name of exactly {@code length} characters (at least 13 plus the prefix's length),
     * padded with letters.
     */
    String nameOfLength(int length) {
        String start = name("");
        if (length < start.length() + 1) {
            throw new IllegalArgumentException("names carry a " + start.length() + "-character prefix");
        }
        return start + "x".repeat(length - start.length());
    }

    /** Whether a test with these names made an instance with this name. */
    boolean isOurs(String name) {
        return name != null && name.contains(token);
    }

    @Override
    public String toString() {
        return "names with token " + token;
    }
}

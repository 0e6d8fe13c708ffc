package dev.egressproxies.runtime.serve;

import dev.egressproxies.runtime.config.ConfigException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The API token, read from a file (its first line, trimmed), checked against an
 * {@code Authorization: Bearer} header in constant time: both sides are hashed first, so neither
 * the comparison's time nor a length difference tells a caller how much of a guess was right.
 */
final class BearerToken {
    private static final int MINIMUM_LENGTH = 16;
    private static final String SCHEME = "Bearer ";

    private final byte[] digest;

    private BearerToken(String token) {
        this.digest = sha256(token);
    }

    /**
     * Reads the token file.
     *
     * @throws ConfigException when it is missing, unreadable, empty or too short
     */
    static BearerToken read(Path file) {
        String token;
        try {
            token = Files.readString(file, StandardCharsets.UTF_8).lines().findFirst().orElse("").strip();
        } catch (IOException e) {
            throw new ConfigException("--token-file " + file + " cannot be read (" + e.getMessage() + "): write the API"
                    + " token into it, for example with: head -c 32 /dev/urandom | base64 > " + file);
        }
        if (token.length() < MINIMUM_LENGTH) {
            throw new ConfigException("--token-file " + file + " holds a token of " + token.length() + " characters;"
                    + " use at least " + MINIMUM_LENGTH + ", for example: head -c 32 /dev/urandom | base64 > " + file);
        }
        return new BearerToken(token);
    }

    /** Whether an {@code Authorization} header value carries this token. */
    boolean accepts(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            return false;
        }
        return MessageDigest.isEqual(digest, sha256(authorization.substring(SCHEME.length()).strip()));
    }

    private static byte[] sha256(String value) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}

package dev.egressproxies.kvm.common.testing;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** Image bytes for tests, and their digests. */
public final class TestBytes {
    private TestBytes() {
    }

    /** {@code length} bytes of a fixed pattern that repeats rarely, so misplaced bytes show. */
    public static byte[] pattern(int length) {
        byte[] bytes = new byte[length];
        for (int index = 0; index < length; index++) {
            bytes[index] = (byte) (index * 31 + index / 251);
        }
        return bytes;
    }

    /** The lowercase hex sha256 of {@code bytes}, as sha256sum prints it. */
    public static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException impossible) {
            // Every Java platform must provide SHA-256.
            throw new IllegalStateException(impossible);
        }
    }
}

package dev.egressproxies.kvm.common.ssh;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.Call;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.sshd.common.NamedResource;
import org.apache.sshd.common.config.keys.FilePasswordProvider;
import org.apache.sshd.common.util.security.SecurityUtils;

/** Reads the client's private key pairs from a key file in OpenSSH or PEM form. */
final class PrivateKeyFile {
    /** The largest key OpenSSH writes (RSA 16384) is about 13 KiB; anything far bigger is not a key. */
    static final int MAXIMUM_BYTES = 64 * 1024;

    private PrivateKeyFile() {
    }

    /**
     * Returns every key pair in {@code file}; never an empty list.
     *
     * @throws ProviderException of {@code dial}: TRANSIENT when the file is missing or unreadable,
     *     PERMANENT when it holds no usable key
     */
    static List<KeyPair> load(Path file, Call dial) {
        byte[] content = read(file, dial);
        AtomicBoolean passphraseRequested = new AtomicBoolean();
        // The provider answers "no passphrase" and remembers it was asked, to explain the failure.
        FilePasswordProvider noPassphrase = (session, resource, retryIndex) -> {
            passphraseRequested.set(true);
            return null;
        };
        List<KeyPair> keyPairs = new ArrayList<>();
        try {
            Iterable<KeyPair> loaded = SecurityUtils.loadKeyPairIdentities(
                    null, NamedResource.ofName(file.toString()), new ByteArrayInputStream(content), noPassphrase);
            if (loaded != null) {
                loaded.forEach(keyPairs::add);
            }
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            if (passphraseRequested.get()) {
                throw dial.failure(ErrorKind.PERMANENT, "SSH private key file " + file
                        + " is protected by a passphrase, which cannot be entered here: remove it with"
                        + " 'ssh-keygen -p -N \"\" -f " + file + "' or use another key", e);
            }
            throw invalid(file, "cannot be parsed (" + e.getMessage() + ")" + ed25519Hint(), e, dial);
        }
        if (keyPairs.isEmpty()) {
            throw invalid(file, "holds no private key of a supported type" + ed25519Hint(), null, dial);
        }
        return List.copyOf(keyPairs);
    }

    private static byte[] read(Path file, Call dial) {
        try {
            return readAtMost(file, MAXIMUM_BYTES).orElseThrow(() -> invalid(file,
                    "is larger than " + MAXIMUM_BYTES / 1024 + " KiB, so it cannot be a private key", null, dial));
        } catch (NoSuchFileException e) {
            throw dial.transientFailure("SSH private key file " + file
                    + " does not exist (yet): create or mount it; every connection attempt reads it again", e);
        } catch (IOException e) {
            throw dial.transientFailure("SSH private key file " + file
                    + " cannot be read (" + e + "): check that this process may read it", e);
        }
    }

    private static ProviderException invalid(Path file, String problem, Throwable cause, Call dial) {
        return dial.failure(ErrorKind.PERMANENT, "SSH private key file " + file + " " + problem
                + ": it must be an unencrypted ed25519, RSA or ECDSA private key in OpenSSH or PEM form,"
                + " as 'ssh-keygen -t ed25519 -N \"\" -f FILE' writes", cause);
    }

    /**
     * Returns the file's content, or empty when it is longer than {@code maximumBytes}: a path
     * pointing at something huge (a disk image, {@code /dev/zero}) must not exhaust the heap.
     */
    static Optional<byte[]> readAtMost(Path file, int maximumBytes) throws IOException {
        try (InputStream input = Files.newInputStream(file)) {
            byte[] content = input.readNBytes(maximumBytes + 1);
            return content.length > maximumBytes ? Optional.empty() : Optional.of(content);
        }
    }

    /** Explains the one case where a valid key is refused: Ed25519 without a provider on the path. */
    private static String ed25519Hint() {
        if (SecurityUtils.isEDDSACurveSupported()) {
            return "";
        }
        return " (if it is an ed25519 key: those need net.i2p.crypto:eddsa or BouncyCastle on the class or"
                + " module path, and neither is there)";
    }
}

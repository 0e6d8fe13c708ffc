package dev.egressproxies.kvm.common.ssh;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.Call;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PublicKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.sshd.common.NamedResource;
import org.apache.sshd.common.config.keys.FilePasswordProvider;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.config.keys.OpenSshCertificate;
import org.apache.sshd.common.config.keys.PublicKeyEntry;
import org.apache.sshd.common.config.keys.PublicKeyEntryResolver;
import org.apache.sshd.common.util.security.SecurityUtils;

/** Reads the client's private key pairs from a key file in OpenSSH or PEM form, with its user certificate. */
final class PrivateKeyFile {
    static {
        // Before MINA first looks for its security providers.
        Ed25519Registrar.install();
    }

    /** OpenSSH's largest key (RSA 16384) is about 13 KiB; anything far bigger is not a key. */
    static final int MAXIMUM_BYTES = 64 * 1024;
    private static final String KEY_FORMS = ": it must be an ed25519, RSA or ECDSA private key in OpenSSH or PEM form,"
            + " as 'ssh-keygen -t ed25519 -f FILE' writes";

    private PrivateKeyFile() {
    }

    /**
     * Every key pair in {@code file}, each preceded by its user certificate when {@code FILE-cert.pub}
     * lies next to it; never empty. Fails TRANSIENT when a file is missing or unreadable, else PERMANENT.
     */
    static List<KeyPair> load(Path file, Path passphraseFile, Call dial) {
        byte[] content = read(file, "SSH private key file", MAXIMUM_BYTES, ", so it cannot be a private key" + KEY_FORMS,
                "create or mount it; every connection attempt reads it again", dial);
        AtomicBoolean passphraseRequested = new AtomicBoolean();
        FilePasswordProvider passphrase = (session, resource, retryIndex) -> {
            passphraseRequested.set(true);
            return passphraseFile == null ? null : passphrase(passphraseFile, dial);
        };
        List<KeyPair> keyPairs = new ArrayList<>();
        try {
            Iterable<KeyPair> loaded = loadKeyPairs(file, content, passphrase);
            if (loaded != null) {
                loaded.forEach(keyPairs::add);
            }
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            if (e instanceof ProviderException failure) {
                throw failure;
            }
            if (passphraseRequested.get() && passphraseFile == null) {
                throw dial.failure(ErrorKind.PERMANENT, "SSH private key file " + file
                        + " is protected by a passphrase: name a file holding it in the entry's passphraseFile,"
                        + " or load the key into ssh-agent ('ssh-add " + file + "') and remove sshKeyFile", e);
            }
            if (passphraseRequested.get()) {
                throw dial.failure(ErrorKind.PERMANENT, "the passphrase in " + passphraseFile + " does not decrypt"
                        + " SSH private key file " + file + " (" + e.getMessage() + "): write the key's passphrase"
                        + " as the first line of " + passphraseFile, e);
            }
            throw invalid(file, "cannot be parsed (" + e.getMessage() + ")" + ed25519Hint(), e, dial);
        }
        if (keyPairs.isEmpty()) {
            throw invalid(file, "holds no private key of a supported type" + ed25519Hint(), null, dial);
        }
        List<KeyPair> withCertificates = new ArrayList<>();
        Path certificateFile = file.resolveSibling(file.getFileName() + "-cert.pub");
        Optional<PublicKey> certificate = certificate(certificateFile, dial);
        for (KeyPair pair : keyPairs) {
            certificate.filter(cert -> cert instanceof OpenSshCertificate openSsh
                            && KeyUtils.compareKeys(openSsh.getCertPubKey(), pair.getPublic()))
                    .ifPresent(cert -> withCertificates.add(new KeyPair(cert, pair.getPrivate())));
            withCertificates.add(pair);
        }
        return List.copyOf(withCertificates);
    }

    /** Whether {@code file} holds a key that only a passphrase opens; false when it cannot be read. */
    static boolean isEncrypted(Path file) {
        AtomicBoolean asked = new AtomicBoolean();
        try {
            loadKeyPairs(file, readAtMost(file, MAXIMUM_BYTES).orElse(new byte[0]), (session, resource, retryIndex) -> {
                asked.set(true);
                return null;
            });
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            // Only whether a passphrase was asked for matters here; load() reports the rest.
        }
        return asked.get();
    }

    /** The public key in {@code FILE.pub} next to a key file, if it is there and readable. */
    static Optional<PublicKey> publicKey(Path file) {
        try {
            return Optional.ofNullable(readPublicKey(file.resolveSibling(file.getFileName() + ".pub"),
                    PublicKeyEntryResolver.IGNORING));
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static Optional<PublicKey> certificate(Path file, Call dial) {
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        try {
            PublicKey key = readPublicKey(file, PublicKeyEntryResolver.FAILING);
            if (!(key instanceof OpenSshCertificate)) {
                throw new IOException("it holds a plain public key");
            }
            return Optional.of(key);
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            throw dial.failure(ErrorKind.PERMANENT, "SSH certificate file " + file + " is not an OpenSSH user"
                    + " certificate (" + e.getMessage() + "): sign the key again with 'ssh-keygen -s CA_KEY -I ID"
                    + " -n USER " + file.getFileName().toString().replace("-cert.pub", ".pub") + "', or remove the"
                    + " file", e);
        }
    }

    private static Iterable<KeyPair> loadKeyPairs(Path file, byte[] content, FilePasswordProvider passphrase)
            throws IOException, GeneralSecurityException {
        return SecurityUtils.loadKeyPairIdentities(null, NamedResource.ofName(file.toString()),
                new ByteArrayInputStream(content), passphrase);
    }

    private static PublicKey readPublicKey(Path file, PublicKeyEntryResolver resolver)
            throws IOException, GeneralSecurityException {
        String line = new String(readAtMost(file, MAXIMUM_BYTES).orElse(new byte[0]), StandardCharsets.UTF_8).strip();
        return PublicKeyEntry.parsePublicKeyEntry(line).resolvePublicKey(null, Map.of(), resolver);
    }

    private static String passphrase(Path file, Call dial) {
        try {
            return readAtMost(file, MAXIMUM_BYTES)
                    .map(bytes -> new String(bytes, StandardCharsets.UTF_8).lines().findFirst().orElse(""))
                    .orElseThrow(() -> dial.permanent("passphrase file " + file + " is larger than "
                            + MAXIMUM_BYTES / 1024 + " KiB: point passphraseFile at the file holding the passphrase"));
        } catch (IOException e) {
            throw dial.transientFailure("passphrase file " + file + " cannot be read (" + e
                    + "): create it, or check that this process may read it", e);
        }
    }

    /**
     * The content of {@code file}, a {@code kind} in messages: PERMANENT when larger than {@code maximumBytes} (a path
     * at a disk image must not exhaust the heap), TRANSIENT when unreadable or missing, or null if missing and
     * {@code missingAdvice} is null.
     */
    static byte[] read(Path file, String kind, int maximumBytes, String tooLarge, String missingAdvice, Call dial) {
        try {
            String size = maximumBytes >= 1024 * 1024 ? maximumBytes / (1024 * 1024) + " MiB" : maximumBytes / 1024 + " KiB";
            return readAtMost(file, maximumBytes).orElseThrow(
                    () -> dial.permanent(kind + " " + file + " is larger than " + size + tooLarge));
        } catch (NoSuchFileException e) {
            if (missingAdvice == null) {
                return null;
            }
            throw dial.transientFailure(kind + " " + file + " does not exist (yet): " + missingAdvice, e);
        } catch (IOException e) {
            throw dial.transientFailure(kind + " " + file + " cannot be read (" + e + "): check that this process may read it",
                    e);
        }
    }

    private static ProviderException invalid(Path file, String problem, Throwable cause, Call dial) {
        return dial.failure(ErrorKind.PERMANENT, "SSH private key file " + file + " " + problem + KEY_FORMS, cause);
    }

    private static Optional<byte[]> readAtMost(Path file, int maximumBytes) throws IOException {
        try (InputStream input = Files.newInputStream(file)) {
            byte[] content = input.readNBytes(maximumBytes + 1);
            return content.length > maximumBytes ? Optional.empty() : Optional.of(content);
        }
    }

    /** Explains the one case where a valid key is refused: Ed25519 without a provider on the path. */
    private static String ed25519Hint() {
        return SecurityUtils.isEDDSACurveSupported() ? "" : " (if it is an ed25519 key: those need"
                + " BouncyCastle (bcprov-jdk18on) in the kvm plugin's folder, and it is not there)";
    }
}

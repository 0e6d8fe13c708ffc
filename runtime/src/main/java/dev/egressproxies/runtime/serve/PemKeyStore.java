package dev.egressproxies.runtime.serve;

import dev.egressproxies.runtime.config.ConfigException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A TLS key store made from the PEM files servers are usually given: a certificate chain and an
 * unencrypted PKCS#8 private key ({@code BEGIN PRIVATE KEY}) of type RSA, EC or Ed25519. Older
 * key formats are refused with the {@code openssl} command that converts them.
 */
public final class PemKeyStore {
    /** The in-memory store's password: it never leaves this process. */
    public static final char[] PASSWORD = "egressctl-serve".toCharArray();
    private static final Pattern PKCS8 = Pattern.compile(
            "-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");
    private static final List<String> KEY_TYPES = List.of("RSA", "EC", "Ed25519");

    private PemKeyStore() {
    }

    /**
     * Loads the pair given as {@code --tls-cert} and {@code --tls-key}.
     *
     * @throws ConfigException naming the file and what to do, when either cannot be used
     */
    static KeyStore load(Path certificateFile, Path keyFile) {
        return load(certificateFile, "--tls-cert", keyFile, "--tls-key");
    }

    /**
     * Loads a certificate chain and its key, given by the named options.
     *
     * @throws ConfigException naming the option, the file and what to do, when either cannot be used
     */
    public static KeyStore load(Path certificateFile, String certificateOption, Path keyFile, String keyOption) {
        List<Certificate> chain = certificates(certificateFile, certificateOption);
        PrivateKey key = privateKey(keyFile, keyOption);
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("serve", key, PASSWORD, chain.toArray(Certificate[]::new));
            return store;
        } catch (GeneralSecurityException | IOException e) {
            throw new ConfigException(keyOption + " " + keyFile + " does not belong to the certificate in "
                    + certificateOption + " " + certificateFile + ": " + e.getMessage());
        }
    }

    /**
     * The PEM certificates of a file given by the named option, such as a CA bundle.
     *
     * @throws ConfigException naming the option and the file, when it holds none or cannot be read
     */
    public static List<Certificate> certificates(Path file, String option) {
        try (InputStream in = Files.newInputStream(file)) {
            List<Certificate> chain = List.copyOf(CertificateFactory.getInstance("X.509").generateCertificates(in));
            if (chain.isEmpty()) {
                throw new ConfigException(option + " " + file + " holds no certificate: give PEM certificates"
                        + " (-----BEGIN CERTIFICATE-----), a chain's own certificate first");
            }
            return chain;
        } catch (IOException e) {
            throw new ConfigException(option + " " + file + " cannot be read: " + e.getMessage());
        } catch (GeneralSecurityException e) {
            throw new ConfigException(option + " " + file + " is not a PEM certificate (" + e.getMessage() + "): give"
                    + " the certificate in PEM form (-----BEGIN CERTIFICATE-----)");
        }
    }

    private static PrivateKey privateKey(Path file, String option) {
        String pem;
        try {
            pem = Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new ConfigException(option + " " + file + " cannot be read: " + e.getMessage());
        }
        Matcher matcher = PKCS8.matcher(pem);
        if (!matcher.find()) {
            String hint = pem.contains("ENCRYPTED") ? "it is encrypted; egressctl reads an unencrypted key from a"
                    + " file only it can read: openssl pkcs8 -topk8 -nocrypt -in " + file + " -out KEY.pem"
                    : "convert it with: openssl pkcs8 -topk8 -nocrypt -in " + file + " -out KEY.pem";
            throw new ConfigException(option + " " + file + " is not an unencrypted PKCS#8 PEM key"
                    + " (-----BEGIN PRIVATE KEY-----); " + hint);
        }
        byte[] der = Base64.getMimeDecoder().decode(matcher.group(1));
        for (String type : KEY_TYPES) {
            try {
                return KeyFactory.getInstance(type).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException notThisType) {
                // try the next type
            }
        }
        throw new ConfigException(option + " " + file + " holds a key that is not RSA, EC or Ed25519");
    }
}

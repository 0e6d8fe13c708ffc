package dev.egressproxies.kvm.common.ssh;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.util.EnumMap;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.sshd.common.config.keys.PublicKeyEntry;

/**
 * The key files the SSH tests use, generated once per test run with ssh-keygen and openssl into a
 * temporary folder that is deleted when the JVM exits.
 */
final class TestKeys {
    /** A client key file of one type and format. */
    enum Client {
        ED25519_OPENSSH(true),
        ED25519_PKCS8_PEM(true),
        RSA_OPENSSH(true),
        RSA_PKCS1_PEM(true),
        RSA_PKCS8_PEM(true),
        ECDSA_OPENSSH(true),
        ECDSA_SEC1_PEM(true),
        /** A valid key that is not in authorized_keys. */
        UNAUTHORIZED(false),
        /** A key protected by a passphrase. */
        ENCRYPTED(false);

        final boolean authorized;

        Client(boolean authorized) {
            this.authorized = authorized;
        }
    }

    private static TestKeys instance;

    private final Path directory;
    private final Map<Client, Path> clientKeys = new EnumMap<>(Client.class);
    private final Path hostEd25519;
    private final Path hostEcdsa;
    private final Path otherHostEd25519;

    private TestKeys(Path directory) throws IOException, InterruptedException {
        this.directory = directory;
        clientKeys.put(Client.ED25519_OPENSSH, keygen("client_ed25519", "-t", "ed25519"));
        clientKeys.put(Client.ED25519_PKCS8_PEM, openssl("client_ed25519_pkcs8.pem"));
        clientKeys.put(Client.RSA_OPENSSH, keygen("client_rsa", "-t", "rsa", "-b", "2048"));
        clientKeys.put(Client.RSA_PKCS1_PEM, keygen("client_rsa.pem", "-t", "rsa", "-b", "2048", "-m", "PEM"));
        clientKeys.put(Client.RSA_PKCS8_PEM, keygen("client_rsa_pkcs8.pem", "-t", "rsa", "-b", "2048", "-m", "PKCS8"));
        clientKeys.put(Client.ECDSA_OPENSSH, keygen("client_ecdsa", "-t", "ecdsa", "-b", "256"));
        clientKeys.put(Client.ECDSA_SEC1_PEM, keygen("client_ecdsa.pem", "-t", "ecdsa", "-b", "384", "-m", "PEM"));
        clientKeys.put(Client.UNAUTHORIZED, keygen("unauthorized_ed25519", "-t", "ed25519"));
        clientKeys.put(Client.ENCRYPTED, keygenWithPassphrase("encrypted_ed25519", "secret", "-t", "ed25519"));
        hostEd25519 = keygen("host_ed25519_key", "-t", "ed25519");
        hostEcdsa = keygen("host_ecdsa_key", "-t", "ecdsa", "-b", "256");
        otherHostEd25519 = keygen("other_host_ed25519_key", "-t", "ed25519");
    }

    /** Returns the keys, generating them on first use. */
    static synchronized TestKeys get() {
        if (instance == null) {
            try {
                Path directory = Files.createTempDirectory("egress-ssh-test-keys-");
                Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteQuietly(directory)));
                instance = new TestKeys(directory);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        return instance;
    }

    Path client(Client kind) {
        return clientKeys.get(kind);
    }

    Path hostEd25519() {
        return hostEd25519;
    }

    Path hostEcdsa() {
        return hostEcdsa;
    }

    Path otherHostEd25519() {
        return otherHostEd25519;
    }

    /** Returns authorized_keys content listing every authorized client key. */
    String authorizedKeys() throws Exception {
        StringBuilder lines = new StringBuilder();
        for (Client kind : Client.values()) {
            if (kind.authorized) {
                lines.append(publicKeyLine(clientKeys.get(kind))).append('\n');
            }
        }
        return lines.toString();
    }

    /** Returns the "type base64" public key of a private key file, as known_hosts and authorized_keys hold it. */
    static String publicKeyLine(Path privateKeyFile) throws Exception {
        Path publicFile = privateKeyFile.resolveSibling(privateKeyFile.getFileName() + ".pub");
        if (Files.exists(publicFile)) {
            String[] fields = Files.readString(publicFile, StandardCharsets.UTF_8).trim().split("\\s+");
            return fields[0] + " " + fields[1];
        }
        // openssl writes no .pub file, and ssh-keygen cannot read its ed25519 PEM: derive it here.
        KeyPair pair = PrivateKeyFile.load(privateKeyFile, null, Dials.dial()).get(0);
        return PublicKeyEntry.toString(pair.getPublic());
    }

    private Path keygen(String name, String... options) throws IOException, InterruptedException {
        return keygenWithPassphrase(name, "", options);
    }

    private Path keygenWithPassphrase(String name, String passphrase, String... options)
            throws IOException, InterruptedException {
        Path file = directory.resolve(name);
        String[] command = Stream.concat(
                        Stream.of("ssh-keygen", "-q", "-N", passphrase, "-C", name, "-f", file.toString()),
                        Stream.of(options))
                .toArray(String[]::new);
        Command.run("openssh-client", command);
        return file;
    }

    private Path openssl(String name) throws IOException, InterruptedException {
        Path file = directory.resolve(name);
        Command.run("openssl", "openssl", "genpkey", "-algorithm", "ed25519", "-out", file.toString());
        return file;
    }

    static void deleteQuietly(Path directory) {
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // Best effort: this runs at JVM exit or after a test, when nothing can be done about it.
        }
    }
}

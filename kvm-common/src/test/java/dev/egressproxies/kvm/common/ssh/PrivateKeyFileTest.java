package dev.egressproxies.kvm.common.ssh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.ssh.TestKeys.Client;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.util.List;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Reading private keys: every supported type and format, and transient versus permanent failures. */
class PrivateKeyFileTest {
    @TempDir
    Path folder;

    @ParameterizedTest
    @CsvSource({
        "ED25519_OPENSSH, ssh-ed25519",
        "ED25519_PKCS8_PEM, ssh-ed25519",
        "RSA_OPENSSH, ssh-rsa",
        "RSA_PKCS1_PEM, ssh-rsa",
        "RSA_PKCS8_PEM, ssh-rsa",
        "ECDSA_OPENSSH, ecdsa-sha2-nistp256",
        "ECDSA_SEC1_PEM, ecdsa-sha2-nistp384",
    })
    void readsEverySupportedTypeAndFormat(Client kind, String keyType) throws Exception {
        List<KeyPair> pairs = PrivateKeyFile.load(TestKeys.get().client(kind), null, Dials.dial());
        assertThat(pairs).hasSize(1);
        assertThat(KeyUtils.getKeyType(pairs.get(0).getPublic())).isEqualTo(keyType);
        assertThat(pairs.get(0).getPrivate()).isNotNull();
    }

    @Test
    void aMissingFileIsTransient() {
        ProviderException failure = failureFor(folder.resolve("absent"));
        assertThat(failure.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(failure.getMessage()).contains("does not exist (yet)");
    }

    @Test
    void aFolderInsteadOfAFileIsTransient() throws Exception {
        ProviderException failure = failureFor(Files.createDirectory(folder.resolve("key")));
        assertThat(failure.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(failure.getMessage()).contains("cannot be read");
    }

    @Test
    void garbageIsPermanent() throws Exception {
        ProviderException failure = failureFor(Files.writeString(folder.resolve("key"), "hello, I am not a key\n"));
        assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(failure.getMessage()).contains(folder.resolve("key").toString(), "ed25519, RSA or ECDSA");
    }

    @Test
    void aTruncatedKeyIsPermanent() throws Exception {
        String whole = Files.readString(TestKeys.get().client(Client.ED25519_OPENSSH));
        Path truncated = Files.writeString(folder.resolve("key"), whole.substring(0, whole.length() / 2));
        assertInvalid(failureFor(truncated));
    }

    @Test
    void anEmptyFileIsPermanent() throws Exception {
        assertInvalid(failureFor(Files.createFile(folder.resolve("key"))));
    }

    @Test
    void aPublicKeyIsNotAPrivateKey() throws Exception {
        Path publicKey = Path.of(TestKeys.get().client(Client.ED25519_OPENSSH) + ".pub");
        assertInvalid(failureFor(publicKey));
    }

    @Test
    void aHugeFileIsRefusedWithoutReadingItAll() throws Exception {
        Path huge = Files.write(folder.resolve("disk.img"), new byte[PrivateKeyFile.MAXIMUM_BYTES + 1]);
        ProviderException failure = failureFor(huge);
        assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(failure.getMessage()).contains("larger than");
    }

    @Test
    void aPassphraseIsNamedAsTheProblem() {
        ProviderException failure = failureFor(TestKeys.get().client(Client.ENCRYPTED));
        assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(failure.getMessage()).contains("passphrase");
    }

    /** A file that is there but holds no usable key: permanent, and the message says what a key must be. */
    private static void assertInvalid(ProviderException failure) {
        assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(failure.getMessage()).contains("ed25519, RSA or ECDSA");
    }

    private static ProviderException failureFor(Path file) {
        return catchThrowableOfType(ProviderException.class, () -> PrivateKeyFile.load(file, null, Dials.dial()));
    }
}

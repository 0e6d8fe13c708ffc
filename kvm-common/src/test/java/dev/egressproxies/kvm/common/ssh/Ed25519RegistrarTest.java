package dev.egressproxies.kvm.common.ssh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Security;
import java.security.Signature;
import java.util.Arrays;
import org.apache.sshd.common.util.security.SecurityUtils;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * MINA's Ed25519 from BouncyCastle through {@link Ed25519Registrar}: signatures agree with the JDK's
 * own Ed25519 both ways, nothing else is taken from BouncyCastle, and no provider joins the JVM's list.
 */
class Ed25519RegistrarTest {
    private static final byte[] MESSAGE = "the session identifier and the rest".getBytes(StandardCharsets.UTF_8);

    @BeforeAll
    static void install() {
        Ed25519Registrar.install();
    }

    @Test
    void minaSignsWithBouncyCastleAndTheJdkVerifies() throws Exception {
        KeyPair pair = KeyPairGenerator.getInstance("Ed25519", "SunEC").generateKeyPair();
        Signature mina = SecurityUtils.getSignature("Ed25519");
        assertThat(mina.getProvider().getName()).isEqualTo("Ed25519-BC");
        mina.initSign(pair.getPrivate());
        mina.update(MESSAGE);
        byte[] signature = mina.sign();

        Signature jdk = Signature.getInstance("Ed25519", "SunEC");
        jdk.initVerify(pair.getPublic());
        jdk.update(MESSAGE);
        assertThat(jdk.verify(signature)).isTrue();
    }

    @Test
    void theJdksSignatureVerifiesAndATamperedOneDoesNot() throws Exception {
        KeyPair pair = KeyPairGenerator.getInstance("Ed25519", "SunEC").generateKeyPair();
        Signature jdk = Signature.getInstance("Ed25519", "SunEC");
        jdk.initSign(pair.getPrivate());
        jdk.update(MESSAGE);
        byte[] signature = jdk.sign();

        assertThat(verifiedByMina(pair, signature)).isTrue();
        byte[] tampered = Arrays.copyOf(signature, signature.length);
        tampered[5] ^= 1;
        assertThat(verifiedByMina(pair, tampered)).isFalse();
    }

    @Test
    void minaReadsEd25519KeysThroughTheRegistrar() throws Exception {
        assertThat(SecurityUtils.isEDDSACurveSupported()).isTrue();
        KeyPair generated = SecurityUtils.getKeyPairGenerator("Ed25519").generateKeyPair();
        assertThat(generated.getPublic().getAlgorithm()).isIn("Ed25519", "EdDSA");
        Signature mina = SecurityUtils.getSignature("Ed25519");
        mina.initSign(generated.getPrivate());
        mina.update(MESSAGE);
        byte[] signature = mina.sign();
        assertThat(verifiedByMina(generated, signature)).isTrue();
    }

    @Test
    void keysOfAnotherTypeAreRefused() throws Exception {
        KeyPair rsa = KeyPairGenerator.getInstance("RSA").generateKeyPair();
        Signature mina = SecurityUtils.getSignature("Ed25519");
        assertThatThrownBy(() -> mina.initVerify(rsa.getPublic())).isInstanceOf(InvalidKeyException.class)
                .hasMessageContaining("not an Ed25519 key");
    }

    @Test
    void takesOnlyEd25519FromBouncyCastleAndAddsNoJvmProvider() throws Exception {
        Ed25519Registrar registrar = new Ed25519Registrar();
        assertThat(registrar.isSecurityEntitySupported(Signature.class, "Ed25519")).isTrue();
        assertThat(registrar.isSecurityEntitySupported(Signature.class, "SHA256withRSA")).isFalse();
        assertThat(registrar.isSecurityEntitySupported(javax.crypto.Cipher.class, "AES")).isFalse();
        assertThat(SecurityUtils.getCipher("AES/CTR/NoPadding").getProvider().getName()).isEqualTo("SunJCE");
        assertThat(Arrays.stream(Security.getProviders()).map(java.security.Provider::getName))
                .doesNotContain("BC", "Ed25519-BC");
    }

    private static boolean verifiedByMina(KeyPair pair, byte[] signature) throws Exception {
        Signature mina = SecurityUtils.getSignature("Ed25519");
        mina.initVerify(pair.getPublic());
        mina.update(MESSAGE);
        return mina.verify(signature);
    }
}
